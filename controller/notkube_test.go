// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// TestWrongServerIsNotGone: the helpers that treat NotFound as "gone"
// (CreateOrUpdate and CreateOrPatch create, RemoveFinalizer reports
// nothing to do) fail with a kube.NotKubernetesError on a server that
// answers plain 404s (the wrong URL), and send no write.
func TestWrongServerIsNotGone(t *testing.T) {
	writes := 0
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			writes++
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(s.Close)
	c, err := kube.NewClient(&kube.Config{Host: s.URL}, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	obj := func() *kube.ConfigMap {
		return &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "1", Finalizers: []string{"f"}}}
	}
	mutate := func() error { return nil }
	for name, call := range map[string]func() error{
		"CreateOrUpdate": func() error { _, err := CreateOrUpdate(ctx, c, obj(), mutate); return err },
		"CreateOrPatch":  func() error { _, err := CreateOrPatch(ctx, c, obj(), mutate); return err },
		"EnsureFinalizer": func() error {
			_, err := EnsureFinalizer(ctx, c, obj(), "g")
			return err
		},
		"RemoveFinalizer": func() error { _, err := RemoveFinalizer(ctx, c, obj(), "f"); return err },
	} {
		if err := call(); !kube.IsNotKubernetes(err) || kube.IsNotFound(err) {
			t.Errorf("%s on a server that answers plain 404s = %v, want a NotKubernetesError", name, err)
		}
	}
	if writes != 0 {
		t.Errorf("%d writes sent to the wrong server, want none", writes)
	}
}
