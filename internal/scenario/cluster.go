// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// This file holds the scenarios of what a cluster holds before anyone
// writes to it, and of the namespace policy kinds (ResourceQuota,
// LimitRange) that kubectl describe reads for every namespace.

func (f *fixture) getUnstructured(t *testing.T, gvk kube.GroupVersionKind, ns, name string) *kube.Unstructured {
	t.Helper()
	u := &kube.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := f.c.Get(f.ctx, kube.Key{Namespace: ns, Name: name}, u); err != nil {
		t.Fatalf("get %s %s/%s: %v", gvk.Kind, ns, name, err)
	}
	return u
}

var identityLeaseName = regexp.MustCompile(`^apiserver-[a-z2-7]{26}$`)

// testStartingObjects: the namespaces, service/kubernetes and the API
// server's own objects in kube-system exist on any fresh server (one
// without controllers, like the integration suite's).
func testStartingObjects(t *testing.T, f *fixture) {
	for _, name := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		var ns kube.Namespace
		if err := f.c.Get(f.ctx, kube.Key{Name: name}, &ns); err != nil || ns.Status.Phase != "Active" {
			t.Errorf("namespace %s: phase %q, %v; want Active", name, ns.Status.Phase, err)
		}
	}

	svc := f.getUnstructured(t, kube.GroupVersionKind{Version: "v1", Kind: "Service"}, "default", "kubernetes")
	spec, _ := svc.Field("spec")
	s, _ := spec.(map[string]any)
	ports, _ := s["ports"].([]any)
	if svc.Labels["component"] != "apiserver" || svc.Labels["provider"] != "kubernetes" || s["type"] != "ClusterIP" ||
		s["clusterIP"] == "" || s["clusterIP"] == nil || len(ports) != 1 {
		t.Fatalf("service/kubernetes = labels %v spec %v", svc.Labels, s)
	}
	if p := ports[0].(map[string]any); p["name"] != "https" || p["port"] != float64(443) || p["protocol"] != "TCP" {
		t.Errorf("service/kubernetes port = %v, want https 443/TCP", p)
	}

	var cm kube.ConfigMap
	if err := f.c.Get(f.ctx, kube.Key{Namespace: "kube-system", Name: "kube-apiserver-legacy-service-account-token-tracking"}, &cm); err != nil ||
		len(cm.Data["since"]) != len("2006-01-02") {
		t.Errorf("kube-system ConfigMap of legacy token tracking: data %v, %v", cm.Data, err)
	}

	var leases kube.List[kube.Lease]
	if err := f.c.List(f.ctx, &leases, kube.ListOptions{Namespace: "kube-system",
		LabelSelector: kube.MustParseSelector("apiserver.kubernetes.io/identity=kube-apiserver")}); err != nil {
		t.Fatal(err)
	}
	if len(leases.Items) != 1 {
		t.Fatalf("API server identity leases in kube-system: %v, want one", names(leases.Items))
	}
	l := leases.Items[0]
	if !identityLeaseName.MatchString(l.Name) || l.Spec.HolderIdentity == nil || !strings.HasPrefix(*l.Spec.HolderIdentity, l.Name+"_") ||
		l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds != 3600 || l.Labels["kubernetes.io/hostname"] == "" {
		t.Errorf("identity lease %s: labels %v spec %+v", l.Name, l.Labels, l.Spec)
	}
}

// testQuotaAndLimitRange: ResourceQuotas keep their status apart (dropped
// on create, written through /status only); LimitRanges default a
// Container's default request from its default limit.
func testQuotaAndLimitRange(t *testing.T, f *fixture) {
	quotaKind := kube.GroupVersionKind{Version: "v1", Kind: "ResourceQuota"}
	q := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "q"}}
	q.SetGroupVersionKind(quotaKind)
	// count/jobs.batch: a quota on nothing the other scenarios create.
	q.SetField(map[string]any{"hard": map[string]any{"count/jobs.batch": "5"}}, "spec")
	q.SetField(map[string]any{"hard": map[string]any{"count/jobs.batch": "1"}}, "status")
	f.mustCreate(t, q)
	if st, _ := q.Field("status"); len(st.(map[string]any)) != 0 || q.Generation != 0 {
		t.Errorf("created quota: status %v generation %d, want {} and none", st, q.Generation)
	}
	status := []byte(`{"status":{"hard":{"count/jobs.batch":"5"},"used":{"count/jobs.batch":"0"}}}`)
	if err := f.c.Status().Patch(f.ctx, q, kube.Patch{Type: kube.MergePatch, Data: status}); err != nil {
		t.Fatal(err)
	}
	if used, _ := q.Field("status", "used", "count/jobs.batch"); used != "0" {
		t.Errorf("quota status after a /status patch = %v", q.Content["status"])
	}
	spec := []byte(`{"spec":{"hard":{"count/jobs.batch":"4"}},"status":{"used":{"count/jobs.batch":"3"}}}`)
	if err := f.c.Patch(f.ctx, q, kube.Patch{Type: kube.MergePatch, Data: spec}); err != nil {
		t.Fatal(err)
	}
	hard, _ := q.Field("spec", "hard", "count/jobs.batch")
	if used, _ := q.Field("status", "used", "count/jobs.batch"); hard != "4" || used != "0" {
		t.Errorf("quota after a main-resource patch: hard %v used %v, want 4 and the status kept (0)", hard, used)
	}

	lr := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "limits"}}
	lr.SetGroupVersionKind(kube.GroupVersionKind{Version: "v1", Kind: "LimitRange"})
	lr.SetField(map[string]any{"limits": []any{
		map[string]any{"type": "Container", "default": map[string]any{"cpu": "500m"}, "min": map[string]any{"memory": "1Mi"}},
	}}, "spec")
	f.mustCreate(t, lr)
	want := map[string]any{"cpu": "500m", "memory": "1Mi"}
	limits, _ := lr.Field("spec", "limits")
	if l := limits.([]any)[0].(map[string]any); !reflect.DeepEqual(l["defaultRequest"], want) {
		t.Errorf("LimitRange defaultRequest = %v, want %v (from default, then min)", l["defaultRequest"], want)
	}
	if _, ok := lr.Field("status"); ok {
		t.Errorf("LimitRange has a status: %v", lr.Content["status"])
	}
}
