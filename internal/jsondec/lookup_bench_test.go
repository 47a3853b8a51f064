// SPDX-License-Identifier: Apache-2.0

package jsondec

import (
	"reflect"
	"testing"
)

// metaLike has the fields of an ObjectMeta, by their JSON names.
type metaLike struct {
	Name              string            `json:"name"`
	GenerateName      string            `json:"generateName"`
	Namespace         string            `json:"namespace"`
	UID               string            `json:"uid"`
	ResourceVersion   string            `json:"resourceVersion"`
	Generation        int64             `json:"generation"`
	CreationTimestamp string            `json:"creationTimestamp"`
	DeletionTimestamp string            `json:"deletionTimestamp"`
	Labels            map[string]string `json:"labels"`
	Annotations       map[string]string `json:"annotations"`
	OwnerReferences   []any             `json:"ownerReferences"`
	Finalizers        []string          `json:"finalizers"`
	ManagedFields     []any             `json:"managedFields"`
}

// BenchmarkLookup matches the keys of an object to a struct's fields:
// known keys in the fields' order, known keys out of it, and unknown
// keys (what a type that declares part of an object meets), which
// matching by case folding paid the most for.
//
//	go test -run '^$' -bench Lookup -benchmem ./internal/jsondec/
func BenchmarkLookup(b *testing.B) {
	p := New(Options{}).plan(reflect.TypeFor[metaLike]())
	for _, tc := range []struct {
		name string
		keys []string
	}{
		{"inOrder", []string{"name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "labels", "annotations"}},
		{"outOfOrder", []string{"labels", "name", "annotations", "uid", "namespace", "creationTimestamp", "resourceVersion", "generation"}},
		{"unknown", []string{"spec", "status", "selfLink", "clusterName", "initializers", "zone", "Replicas", "replicaſ"}},
	} {
		keys := make([][]byte, len(tc.keys))
		for i, k := range tc.keys {
			keys[i] = []byte(k)
		}
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				hint := 0
				for _, k := range keys {
					p.lookup(k, &hint)
				}
			}
		})
	}
}
