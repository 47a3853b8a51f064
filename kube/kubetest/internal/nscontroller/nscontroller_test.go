// SPDX-License-Identifier: Apache-2.0

package nscontroller

import (
	"slices"
	"testing"
	"time"
)

// fakeStore is a namespace "ns" being deleted and the objects left in
// each collection after a deletion pass.
type fakeStore struct {
	ns      map[string]any
	left    map[string]int
	deleted []string // the collections DeleteContent was asked for, in order
	updates []string // the subresources written
}

func (f *fakeStore) Namespace(string) (map[string]any, bool) { return f.ns, true }

func (f *fakeStore) Collections() (keys, names []string) {
	return []string{"/configmaps", "/pods"}, []string{"configmaps.", "pods."}
}

func (f *fakeStore) DeleteContent(key, _ string, finalizers map[string]int) int {
	f.deleted = append(f.deleted, key)
	return f.left[key]
}

func (f *fakeStore) Update(_, sub string, o map[string]any) {
	f.updates = append(f.updates, sub)
	f.ns = o
}

func TestSync(t *testing.T) {
	now := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		left        map[string]int
		wantDeleted []string
		wantUpdates []string
	}{
		{"pods left: stops after pods", map[string]int{"/pods": 1}, []string{"/pods"}, []string{"status"}},
		{"content left: no finalize", map[string]int{"/configmaps": 2}, []string{"/pods", "/configmaps"}, []string{"status"}},
		{"empty: finalized", nil, []string{"/pods", "/configmaps"}, []string{"status", "finalize"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeStore{ns: map[string]any{"spec": map[string]any{"finalizers": []any{Finalizer}}}, left: tt.left}
			Sync(f, "ns", now)
			if !slices.Equal(f.deleted, tt.wantDeleted) || !slices.Equal(f.updates, tt.wantUpdates) {
				t.Errorf("Sync deleted %q, wrote %q; want %q, %q", f.deleted, f.updates, tt.wantDeleted, tt.wantUpdates)
			}
		})
	}
}
