// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"fmt"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// testCRDDeleted: once a CRD is deleted, the server's mux answers its
// resource's paths with a plain "404 page not found" (no Status), while
// /api still answers as Kubernetes: a client that still knows the kind
// reads its objects as NotFound, never as a server that is not
// Kubernetes.
func testCRDDeleted(t *testing.T, f *fixture) {
	group := "gone-" + randomSuffix() + ".kubeloop.dev"
	crd := widgetCRDIn(group, "widgets", "Widget")
	f.mustCreate(t, crd)
	t.Cleanup(func() { _ = f.c.Delete(f.ctx, crd) })
	gvk := kube.GroupVersionKind{Group: group, Version: "v1", Kind: "Widget"}
	w := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "w"}}
	w.SetGroupVersionKind(gvk)
	f.eventually(t, "CRD served", func() error { return f.c.Create(f.ctx, w) })

	if err := f.c.Delete(f.ctx, crd); err != nil {
		t.Fatal(err)
	}
	path := "/apis/" + group + "/v1/namespaces/" + f.ns + "/widgets/w"
	f.eventually(t, "the mux's 404 for the deleted CRD's resource", func() error {
		r := f.send(t, "GET", path, "", "")
		if r.code != 404 || string(r.body) != "404 page not found\n" {
			return fmt.Errorf("GET %s = %d %q, want 404 page not found as text", path, r.code, r.body)
		}
		return nil
	})
	got := &kube.Unstructured{}
	got.SetGroupVersionKind(gvk)
	if err := f.c.Get(f.ctx, w.Key(), got); !kube.IsNotFound(err) || kube.IsNotKubernetes(err) {
		t.Errorf("Get of a custom resource whose CRD was deleted = %v, want NotFound", err)
	}
	var list kube.List[kube.Unstructured]
	list.SetGroupVersionKind(kube.GroupVersionKind{Group: group, Version: "v1", Kind: "WidgetList"})
	if err := f.c.List(f.ctx, &list, kube.ListOptions{Namespace: f.ns}); !kube.IsNotFound(err) || kube.IsNotKubernetes(err) {
		t.Errorf("List of a kind whose CRD was deleted = %v, want NotFound", err)
	}
}
