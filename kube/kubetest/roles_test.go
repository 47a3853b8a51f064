// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"context"
	"net/http"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// TestRoles: what a user asked is written as the smallest roles that
// allow it, and what another user asked is not.
func TestRoles(t *testing.T) {
	srv := New(Options{Tokens: map[string]string{"tok-op": "op", "tok-admin": "admin"}})
	defer srv.Close()
	ctx := context.Background()
	admin := userClient(t, srv, "admin")
	for _, ns := range []string{"a", "b"} {
		if err := admin.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := admin.Create(ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "a", Name: "cm"}}); err != nil {
		t.Fatal(err)
	}
	if srv.Roles("op", "x") != "" {
		t.Fatalf("roles of a user who asked nothing: %q", srv.Roles("op", "x"))
	}

	op := userClient(t, srv, "op")
	var cms kube.List[kube.ConfigMap]
	ok(t, op.List(ctx, &cms))                                               // across namespaces: cluster scope
	ok(t, op.List(ctx, &cms, kube.InNamespace("a")))                        // allowed by the ClusterRole already
	ok(t, op.Get(ctx, kube.Key{Namespace: "a", Name: "cm"}, &cms.Items[0])) // get in a: a Role
	cm := cms.Items[0]
	cm.Data = map[string]string{"k": "v"}
	ok(t, op.Update(ctx, &cm)) // update (and its read)
	lease := &kube.Lease{ObjectMeta: kube.ObjectMeta{Namespace: "b", Name: "l"}}
	ok(t, op.Create(ctx, lease))
	var ns kube.Namespace
	ok(t, op.Get(ctx, kube.Key{Name: "a"}, &ns)) // a namespace object: cluster scope
	srv.Deny("op", "delete", "leases.coordination.k8s.io")
	if err := op.Delete(ctx, lease); !kube.IsForbidden(err) {
		t.Fatalf("delete after Deny: %v, want forbidden", err)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.Config().Host+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer tok-op")
	if resp, err := srv.Transport().RoundTrip(req); err == nil {
		resp.Body.Close()
	}
	if _, err := op.Mapping(ctx, kube.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}); err != nil {
		t.Fatal(err) // discovery: allowed to all, left out
	}

	want := `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: my-operator
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [list]
- apiGroups: [""]
  resources: [namespaces]
  verbs: [get]
- nonResourceURLs: [/metrics]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: my-operator
  namespace: a
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: my-operator
  namespace: b
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [create, delete]
`
	if got := srv.Roles("op", "my-operator"); got != want {
		t.Errorf("Roles:\n%s\nwant:\n%s", got, want)
	}
	wantCluster := `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: my-operator
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, update]
- apiGroups: [""]
  resources: [namespaces]
  verbs: [get]
- nonResourceURLs: [/metrics]
  verbs: [get]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [create, delete]
`
	if got := srv.ClusterRole("op", "my-operator"); got != wantCluster {
		t.Errorf("ClusterRole:\n%s\nwant:\n%s", got, wantCluster)
	}
	srv.ResetCounts()
	if got := srv.Roles("op", "my-operator"); got != "" {
		t.Errorf("Roles after ResetCounts: %q, want none", got)
	}
}

func userClient(t *testing.T, srv *Server, user string) *kube.Client {
	t.Helper()
	c, err := kube.NewClient(srv.ConfigFor(user), kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
