// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

func testForbidden(t *testing.T, f *fixture) {
	if f.env.DeniedConfig == nil {
		t.Fatal("the environment has no denied user: this scenario cannot run")
	}
	denied, err := kube.NewClient(f.env.DeniedConfig, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var list kube.List[kube.ConfigMap]
	err = denied.List(f.ctx, &list, kube.ListOptions{Namespace: f.ns})
	if !kube.IsForbidden(err) {
		t.Fatalf("List as the denied user = %v, want Forbidden", err)
	}
	if !strings.Contains(err.Error(), `cannot list resource "configmaps" in API group "" in the namespace "`+f.ns+`"`) {
		t.Errorf("Forbidden message %q, want the server's wording", err)
	}
}

func testLease(t *testing.T, f *fixture) {
	holder := "pod-a_1234"
	dur := int32(15)
	transitions := int32(0)
	at := kube.MicroTime{Time: time.Date(2026, 11, 21, 4, 50, 0, 123456000, time.UTC)}
	lease := &kube.Lease{
		ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "demo-leader"},
		Spec:       kube.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &dur, AcquireTime: &at, RenewTime: &at, LeaseTransitions: &transitions},
	}
	f.mustCreate(t, lease)
	var got kube.Lease
	if err := f.c.Get(f.ctx, lease.Key(), &got); err != nil {
		t.Fatal(err)
	}
	s := got.Spec
	if s.HolderIdentity == nil || *s.HolderIdentity != holder || s.RenewTime == nil || !s.RenewTime.Equal(at.Time) || *s.LeaseDurationSeconds != 15 {
		t.Errorf("lease spec %+v, want it as written (microsecond times)", s)
	}
}

func testEvent(t *testing.T, f *fixture) {
	ev := &kube.Event{
		ObjectMeta:          kube.ObjectMeta{Namespace: f.ns, GenerateName: "cm1."},
		EventTime:           kube.MicroTime{Time: time.Now()},
		ReportingController: "kubeloop.dev/scenario",
		ReportingInstance:   "scenario-1",
		Action:              "Reconcile",
		Reason:              "Synced",
		Note:                "configmap synced",
		Type:                "Normal",
		Regarding:           kube.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: f.ns, Name: "cm1"},
	}
	if err := f.c.Create(f.ctx, ev); !kube.IsInvalid(err) {
		t.Errorf("Event with generateName %q = %v, want Invalid as the real server answers", "cm1.", err)
	}
	ev.GenerateName = "cm1-"
	f.mustCreate(t, ev)
	if !strings.HasPrefix(ev.Name, "cm1-") || ev.Regarding.Name != "cm1" {
		t.Errorf("created event %s regarding %+v", ev.Name, ev.Regarding)
	}
}

// testVersion checks /version: the server's release (f.version), with
// the fields kube-apiserver 1.33 to 1.37 report.
func testVersion(t *testing.T, f *fixture) {
	r := f.send(t, "GET", "/version", "", "")
	var v map[string]string
	if err := json.Unmarshal(r.body, &v); err != nil || r.code != 200 {
		t.Fatalf("GET /version = %d %s", r.code, r.body)
	}
	minor := f.minor(t)
	want := map[string]string{"major": "1", "minor": strconv.Itoa(minor), "emulationMajor": "1", "emulationMinor": strconv.Itoa(minor),
		"minCompatibilityMajor": "1", "minCompatibilityMinor": strconv.Itoa(minor - 1), "gitVersion": "v" + f.version(t), "compiler": "gc"}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("/version %s = %q, want %q", k, v[k], w)
		}
	}
	for _, k := range []string{"gitCommit", "gitTreeState", "buildDate", "goVersion", "platform"} {
		if v[k] == "" {
			t.Errorf("/version has no %s: %s", k, r.body)
		}
	}
}
