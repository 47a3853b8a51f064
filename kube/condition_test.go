// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

func TestConditionJSONNames(t *testing.T) {
	c := kube.Condition{Type: "Ready", Status: kube.ConditionTrue, ObservedGeneration: 3,
		LastTransitionTime: kube.Time{Time: time.Date(2026, 11, 21, 4, 48, 10, 0, time.UTC)}, Reason: "Done", Message: "all good"}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	// The field order and names of metav1.Condition.
	want := `{"type":"Ready","status":"True","observedGeneration":3,"lastTransitionTime":"2026-11-21T04:48:10Z","reason":"Done","message":"all good"}`
	if string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	var back kube.Condition
	if err := json.Unmarshal(b, &back); err != nil || back != c {
		t.Errorf("Unmarshal = %+v, %v, want %+v", back, err, c)
	}
	// observedGeneration is the only field left out when zero.
	b, _ = json.Marshal(kube.Condition{})
	if want := `{"type":"","status":"","lastTransitionTime":null,"reason":"","message":""}`; string(b) != want {
		t.Errorf("Marshal(zero) = %s, want %s", b, want)
	}
}

func TestSetStatusCondition(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := kube.Now()
		var conds []kube.Condition

		// A new condition gets the time now.
		if !kube.SetStatusCondition(&conds, kube.Condition{Type: "Ready", Status: kube.ConditionFalse, Reason: "Starting"}) {
			t.Errorf("first set: changed = false, want true")
		}
		if len(conds) != 1 || !conds[0].LastTransitionTime.Equal(t0.Time) {
			t.Fatalf("after first set: %+v, want one condition at %v", conds, t0)
		}

		// Same status, new reason and message: changed, time kept.
		time.Sleep(time.Minute)
		if !kube.SetStatusCondition(&conds, kube.Condition{Type: "Ready", Status: kube.ConditionFalse, Reason: "Waiting", Message: "for pods", ObservedGeneration: 2}) {
			t.Errorf("reason change: changed = false, want true")
		}
		if c := conds[0]; c.Reason != "Waiting" || c.Message != "for pods" || c.ObservedGeneration != 2 || !c.LastTransitionTime.Equal(t0.Time) {
			t.Errorf("after reason change: %+v, want reason Waiting, message, generation 2, time %v kept", c, t0)
		}

		// Nothing new: not changed.
		if kube.SetStatusCondition(&conds, kube.Condition{Type: "Ready", Status: kube.ConditionFalse, Reason: "Waiting", Message: "for pods", ObservedGeneration: 2}) {
			t.Errorf("same condition again: changed = true, want false")
		}

		// A status change moves the time to now.
		time.Sleep(time.Minute)
		t2 := kube.Now()
		if !kube.SetStatusCondition(&conds, kube.Condition{Type: "Ready", Status: kube.ConditionTrue, Reason: "Ready", ObservedGeneration: 2}) {
			t.Errorf("status change: changed = false, want true")
		}
		if c := conds[0]; c.Status != kube.ConditionTrue || !c.LastTransitionTime.Equal(t2.Time) || c.Message != "" {
			t.Errorf("after status change: %+v, want True at %v with the message cleared", c, t2)
		}

		// A time given is kept, for a new condition and for a transition.
		given := kube.Time{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		kube.SetStatusCondition(&conds, kube.Condition{Type: "Degraded", Status: kube.ConditionFalse, Reason: "Fine", LastTransitionTime: given})
		kube.SetStatusCondition(&conds, kube.Condition{Type: "Ready", Status: kube.ConditionFalse, Reason: "Lost", LastTransitionTime: given})
		for _, typ := range []string{"Degraded", "Ready"} {
			if c := kube.FindStatusCondition(conds, typ); c == nil || !c.LastTransitionTime.Equal(given.Time) {
				t.Errorf("%s: %+v, want the time given, %v", typ, c, given)
			}
		}
		// A time given without a status change is ignored.
		kube.SetStatusCondition(&conds, kube.Condition{Type: "Ready", Status: kube.ConditionFalse, Reason: "Lost", LastTransitionTime: t2})
		if c := kube.FindStatusCondition(conds, "Ready"); !c.LastTransitionTime.Equal(given.Time) {
			t.Errorf("time given with the same status: %v, want %v kept", c.LastTransitionTime, given)
		}
		if len(conds) != 2 {
			t.Errorf("len = %d, want 2 (one per type)", len(conds))
		}
	})
	if kube.SetStatusCondition(nil, kube.Condition{Type: "Ready"}) {
		t.Errorf("SetStatusCondition(nil) = true, want false")
	}
}

func TestRemoveAndQueryStatusConditions(t *testing.T) {
	conds := []kube.Condition{
		{Type: "Ready", Status: kube.ConditionTrue},
		{Type: "Degraded", Status: kube.ConditionFalse},
		{Type: "Progressing", Status: kube.ConditionUnknown},
	}
	for _, tc := range []struct {
		typ         string
		true, false bool
	}{
		{"Ready", true, false},
		{"Degraded", false, true},
		{"Progressing", false, false},
		{"Missing", false, false},
	} {
		if got := kube.IsStatusConditionTrue(conds, tc.typ); got != tc.true {
			t.Errorf("IsStatusConditionTrue(%q) = %v, want %v", tc.typ, got, tc.true)
		}
		if got := kube.IsStatusConditionFalse(conds, tc.typ); got != tc.false {
			t.Errorf("IsStatusConditionFalse(%q) = %v, want %v", tc.typ, got, tc.false)
		}
	}
	if !kube.IsStatusConditionPresentAndEqual(conds, "Progressing", kube.ConditionUnknown) {
		t.Errorf("IsStatusConditionPresentAndEqual(Progressing, Unknown) = false, want true")
	}

	// Removal leaves slices sharing the old array alone.
	shared := conds
	if !kube.RemoveStatusCondition(&conds, "Degraded") {
		t.Errorf("RemoveStatusCondition(Degraded) = false, want true")
	}
	if got := fmt.Sprint(types(conds)); got != "[Ready Progressing]" {
		t.Errorf("after remove: %s, want [Ready Progressing]", got)
	}
	if got := fmt.Sprint(types(shared)); got != "[Ready Degraded Progressing]" {
		t.Errorf("the shared slice after remove: %s, want it unchanged", got)
	}
	if kube.RemoveStatusCondition(&conds, "Degraded") {
		t.Errorf("RemoveStatusCondition of a missing type = true, want false")
	}
	if kube.RemoveStatusCondition(nil, "Ready") {
		t.Errorf("RemoveStatusCondition(nil) = true, want false")
	}
	if c := kube.FindStatusCondition(conds, "Ready"); c == nil || c != &conds[0] {
		t.Errorf("FindStatusCondition(Ready) = %p, want a pointer into the slice (%p)", c, &conds[0])
	}
}

func types(conds []kube.Condition) []string {
	var out []string
	for _, c := range conds {
		out = append(out, c.Type)
	}
	return out
}

func ExampleSetStatusCondition() {
	type WidgetStatus struct {
		Conditions []kube.Condition `json:"conditions,omitempty"`
	}
	var status WidgetStatus
	generation := int64(4) // the object's metadata.generation

	kube.SetStatusCondition(&status.Conditions, kube.Condition{
		Type: "Ready", Status: kube.ConditionFalse, Reason: "Creating", ObservedGeneration: generation,
	})
	before := status.Conditions[0].LastTransitionTime

	// The next reconcile finds the work done: the status changes, and so
	// does the transition time.
	changed := kube.SetStatusCondition(&status.Conditions, kube.Condition{
		Type: "Ready", Status: kube.ConditionTrue, Reason: "Created", Message: "the ConfigMap exists", ObservedGeneration: generation,
	})
	c := kube.FindStatusCondition(status.Conditions, "Ready")
	fmt.Println(changed, c.Status, c.Reason, !c.LastTransitionTime.Before(before.Time))
	fmt.Println(kube.IsStatusConditionTrue(status.Conditions, "Ready"))

	// Writing the same again changes nothing: no status update is needed.
	fmt.Println(kube.SetStatusCondition(&status.Conditions, *c))
	// Output:
	// true True Created true
	// true
	// false
}
