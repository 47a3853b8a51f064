// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// testEvictionBudget evicts pods a PodDisruptionBudget covers. No
// disruption controller runs beside either server (kubetest has none;
// the harness does not start kube-controller-manager's unless
// KUBELOOP_HARNESS_CONTROLLERS names it, and then this scenario races
// it), so the budget's status is what the scenario writes through its
// status subresource:
//
//   - a budget never processed (no status.observedGeneration) answers
//     429 with Retry-After 10 and the DisruptionBudget cause, read raw,
//     since kube.Client would wait and retry;
//   - one that allows no disruption answers 429 without a Retry-After,
//     which kube.Client returns at once, the cause naming the healthy
//     pods it needs;
//   - one that allows one is charged by the eviction: disruptionsAllowed
//     0, the pod in disruptedPods, DisruptionAllowed False;
//   - a pod two budgets cover is refused with a 500.
func testEvictionBudget(t *testing.T, f *fixture) {
	budgets := "/apis/policy/v1/namespaces/" + f.ns + "/poddisruptionbudgets"
	budget := func(name string, selector any) *kube.Unstructured {
		b := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
			ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: name},
			Content:    map[string]any{"spec": map[string]any{"minAvailable": 1, "selector": selector}}}
		f.mustCreate(t, b)
		return b
	}
	setStatus := func(path, status string) {
		t.Helper()
		if r := f.send(t, http.MethodPatch, path+"/status", "application/merge-patch+json", `{"status":`+status+`}`); r.code != http.StatusOK {
			t.Fatalf("patch status of %s = %d %s", path, r.code, r.body)
		}
	}
	running := func(name string) *kube.Unstructured {
		t.Helper()
		p := pod(f.ns, name)
		p.Labels = map[string]string{"app": "guarded"}
		f.mustCreate(t, p)
		setStatus("/api/v1/namespaces/"+f.ns+"/pods/"+name,
			`{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}`)
		return p
	}
	evict := f.c.SubResource("eviction")

	guard := budget("guard", map[string]any{"matchLabels": map[string]any{"app": "guarded"}})
	budget("unselective", nil) // no selector: covers no pod
	p := running("guarded")
	r := f.send(t, http.MethodPost, "/api/v1/namespaces/"+f.ns+"/pods/guarded/eviction", "application/json",
		`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"guarded"}}`)
	var st kube.Status
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatalf("decode eviction answer %q: %v", r.body, err)
	}
	want := kube.Status{Status: "Failure", Code: http.StatusTooManyRequests, Reason: kube.ReasonTooManyRequests,
		Message: "Cannot evict pod as it would violate the pod's disruption budget.",
		Details: &kube.StatusDetails{RetryAfterSeconds: 10, Causes: []kube.StatusCause{{Type: "DisruptionBudget",
			Message: "The disruption budget guard is still being processed by the server."}}}}
	st.TypeMeta, st.ListMeta = kube.TypeMeta{}, kube.ListMeta{}
	if r.code != http.StatusTooManyRequests || r.header.Get("Retry-After") != "10" || !reflect.DeepEqual(st, want) {
		t.Errorf("evict under a budget never processed = %d (Retry-After %q) %+v, want 429 (Retry-After \"10\") %+v",
			r.code, r.header.Get("Retry-After"), st, want)
	}

	path := budgets + "/guard"
	setStatus(path, fmt.Sprintf(`{"observedGeneration":%d,"currentHealthy":1,"desiredHealthy":1}`, guard.Generation))
	err := evict.Create(f.ctx, p, &kube.Eviction{})
	var se *kube.StatusError
	if !errors.As(err, &se) || !kube.IsTooManyRequests(err) || se.RetryAfter != 0 || se.Status.Details == nil ||
		!reflect.DeepEqual(se.Status.Details.Causes, []kube.StatusCause{{Type: "DisruptionBudget",
			Message: "The disruption budget guard needs 1 healthy pods and has 1 currently"}}) {
		t.Errorf("evict under a budget allowing no disruption = %v (%+v), want 429 without Retry-After, "+
			"the cause naming the healthy pods", err, se)
	}

	setStatus(path, `{"disruptionsAllowed":1,"currentHealthy":2}`)
	if err := evict.Create(f.ctx, p, &kube.Eviction{}); err != nil {
		t.Fatalf("evict under a budget allowing one disruption = %v", err)
	}
	if err := f.c.Get(f.ctx, p.Key(), p); !kube.IsNotFound(err) {
		t.Errorf("Get of the evicted pod = %v, want NotFound", err)
	}
	if err := f.c.Get(f.ctx, guard.Key(), guard); err != nil {
		t.Fatal(err)
	}
	status, _ := guard.Content["status"].(map[string]any)
	allowed, _ := kube.NestedInt64(guard.Content, "status", "disruptionsAllowed")
	disrupted, _ := status["disruptedPods"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	var cond map[string]any
	if len(conds) == 1 {
		cond, _ = conds[0].(map[string]any)
	}
	if allowed != 0 || len(disrupted) != 1 || disrupted["guarded"] == nil || cond["type"] != "DisruptionAllowed" ||
		cond["status"] != "False" || cond["reason"] != "InsufficientPods" {
		t.Errorf("budget status after the eviction = %v, want none allowed, the pod disrupted, DisruptionAllowed False (InsufficientPods)", status)
	}

	budget("everything", map[string]any{})
	running("twice")
	r = f.send(t, http.MethodPost, "/api/v1/namespaces/"+f.ns+"/pods/twice/eviction", "application/json",
		`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"twice"}}`)
	expectStatus(t, "evict under two budgets", r, http.StatusInternalServerError, "",
		"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.")
}
