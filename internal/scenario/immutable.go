// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// invalidField checks that err is Invalid with a cause on field.
func invalidField(t *testing.T, what string, err error, field, message string) {
	t.Helper()
	se, ok := kube.AsStatusError(err)
	if !ok || !kube.IsInvalid(err) {
		t.Errorf("%s = %v, want Invalid", what, err)
		return
	}
	if !strings.Contains(err.Error(), message) {
		t.Errorf("%s: message %q, want it to contain %q", what, err, message)
	}
	if se.Status.Details == nil {
		t.Errorf("%s: no details, want a cause on %s", what, field)
		return
	}
	for _, c := range se.Status.Details.Causes {
		if c.Field == field {
			return
		}
	}
	t.Errorf("%s: causes %+v, want one on %s", what, se.Status.Details.Causes, field)
}

func testImmutable(t *testing.T, f *fixture) {
	yes := true
	cm := f.configMap("frozen", nil, map[string]string{"a": "1"})
	cm.Immutable = &yes
	f.mustCreate(t, cm)
	const frozen = "field is immutable when `immutable` is set"
	err := f.c.Patch(f.ctx, cm, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"a":"2"}}`)})
	invalidField(t, "changing an immutable ConfigMap's data", err, "data", frozen)
	err = f.c.Patch(f.ctx, cm, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"immutable":false}`)})
	invalidField(t, "making an immutable ConfigMap mutable", err, "immutable", frozen)
	if err := f.c.Patch(f.ctx, cm, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"labels":{"still":"writable"}}}`)}); err != nil {
		t.Errorf("labelling an immutable ConfigMap: %v, want it allowed", err)
	}

	secret := &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "frozen"}, Immutable: &yes, Type: "Opaque",
		Data: map[string][]byte{"a": []byte("1")}}
	f.mustCreate(t, secret)
	err = f.c.Patch(f.ctx, secret, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"stringData":{"a":"2"}}`)})
	invalidField(t, "changing an immutable Secret through stringData", err, "data", frozen)

	plain := &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "typed"}, Type: "Opaque"}
	f.mustCreate(t, plain)
	err = f.c.Patch(f.ctx, plain, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"type":"example.com/other"}`)})
	invalidField(t, "changing a Secret's type", err, "type", "field is immutable")
}
