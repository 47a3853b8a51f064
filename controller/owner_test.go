// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

func owner(ns, name, uid string) *widget {
	return &widget{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: name, UID: uid}}
}

func TestSetControllerReference(t *testing.T) {
	yes := true
	want := kube.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "u1", Controller: &yes, BlockOwnerDeletion: &yes}
	plain := kube.OwnerReference{APIVersion: "example.com/v1beta1", Kind: "Widget", Name: "w", UID: "u0"}
	other := ref("example.com/v1", "Widget", "other", true)
	tests := []struct {
		name    string
		owner   kube.Object
		obj     *kube.ConfigMap
		want    []kube.OwnerReference
		wantErr string
	}{
		{"add", owner("ns", "w", "u1"), obj("ns", "dep", ""), []kube.OwnerReference{want}, ""},
		{"again: unchanged", owner("ns", "w", "u1"), obj("ns", "dep", "", want), []kube.OwnerReference{want}, ""},
		{"replaces a plain reference to the same owner, whatever its version", owner("ns", "w", "u1"), obj("ns", "dep", "", plain), []kube.OwnerReference{want}, ""},
		{"keeps other owners", owner("ns", "w", "u1"), obj("ns", "dep", "", ref("v1", "ConfigMap", "c", false)), []kube.OwnerReference{ref("v1", "ConfigMap", "c", false), want}, ""},
		{"cluster-scoped owner of a namespaced object", owner("", "w", "u1"), obj("ns", "dep", ""), []kube.OwnerReference{want}, ""},
		{"another controller", owner("ns", "w", "u1"), obj("ns", "dep", "", other), nil, "object ns/dep is already owned by another Widget controller other"},
		{"owner without uid", owner("ns", "w", ""), obj("ns", "dep", ""), nil, "owner Widget ns/w has no uid"},
		{"owner without name", owner("ns", "", "u1"), obj("ns", "dep", ""), nil, "owner Widget has no name"},
		{"owner in another namespace", owner("a", "w", "u1"), obj("b", "dep", ""), nil, "owner Widget a/w is in another namespace than object b/dep"},
		{"namespaced owner of a cluster-scoped object", owner("a", "w", "u1"), obj("", "dep", ""), nil, "cluster-scoped object dep cannot have namespaced owner"},
		{"owner without kind", &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Name: "w", UID: "u"}}, obj("", "dep", ""), nil, "names no kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := append([]kube.OwnerReference(nil), tt.obj.OwnerReferences...)
			err := SetControllerReference(tt.owner, tt.obj)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("SetControllerReference = %v, want an error containing %q", err, tt.wantErr)
				}
				if !reflect.DeepEqual(tt.obj.OwnerReferences, before) {
					t.Errorf("after a failure, references = %+v, want unchanged %+v", tt.obj.OwnerReferences, before)
				}
				return
			}
			if err != nil {
				t.Fatalf("SetControllerReference = %v", err)
			}
			if !reflect.DeepEqual(tt.obj.OwnerReferences, tt.want) {
				t.Errorf("references = %+v, want %+v", tt.obj.OwnerReferences, tt.want)
			}
			if !HasControllerReference(tt.owner, tt.obj) {
				t.Errorf("HasControllerReference after SetControllerReference = false")
			}
		})
	}

	err := SetControllerReference(owner("ns", "w", "u1"), obj("ns", "dep", "", other))
	var owned *AlreadyOwnedError
	if !errors.As(err, &owned) || owned.Owner.Name != "other" || owned.Object != (kube.Key{Namespace: "ns", Name: "dep"}) {
		t.Errorf("SetControllerReference over another controller = %v, want an *AlreadyOwnedError naming other and ns/dep", err)
	}
}

func TestSetOwnerReference(t *testing.T) {
	other := ref("example.com/v1", "Widget", "other", true)
	o := obj("ns", "dep", "", other)
	if err := SetOwnerReference(owner("ns", "w", "u1"), o); err != nil {
		t.Fatalf("SetOwnerReference with another controller = %v, want nil", err)
	}
	want := []kube.OwnerReference{other, {APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "u1"}}
	if !reflect.DeepEqual(o.OwnerReferences, want) {
		t.Errorf("references = %+v, want %+v", o.OwnerReferences, want)
	}
	if HasControllerReference(owner("ns", "w", "u1"), o) || !HasControllerReference(owner("ns", "other", "x"), o) {
		t.Errorf("HasControllerReference: w %v, other %v; want false, true",
			HasControllerReference(owner("ns", "w", "u1"), o), HasControllerReference(owner("ns", "other", "x"), o))
	}
	if err := SetOwnerReference(owner("x", "w", "u1"), o); err == nil {
		t.Errorf("SetOwnerReference across namespaces = nil, want an error")
	}
}
