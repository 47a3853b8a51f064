// SPDX-License-Identifier: Apache-2.0

package gc

import (
	"slices"
	"testing"
)

func TestFinalizers(t *testing.T) {
	tests := []struct {
		fins            []string
		propagation     string
		orphanByDefault bool
		want            []string
		changed         bool
	}{
		{nil, "Background", false, nil, false},
		{nil, "Foreground", false, []string{FinalizerForeground}, true},
		{[]string{"x"}, "Orphan", false, []string{"x", FinalizerOrphan}, true},
		{[]string{FinalizerOrphan}, "", false, []string{FinalizerOrphan}, false},
		{nil, "", true, []string{FinalizerOrphan}, true},
		{[]string{FinalizerForeground, "x"}, "Background", true, []string{"x"}, true},
	}
	for _, tt := range tests {
		got, changed := Finalizers(tt.fins, tt.propagation, tt.orphanByDefault)
		if changed != tt.changed || (changed && !slices.Equal(got, tt.want)) {
			t.Errorf("Finalizers(%q, %q, %v) = %q, %v, want %q, %v", tt.fins, tt.propagation, tt.orphanByDefault, got, changed, tt.want, tt.changed)
		}
	}
}

func TestRemoveFinalizer(t *testing.T) {
	o := map[string]any{"metadata": map[string]any{"finalizers": []any{"a", FinalizerOrphan}}}
	if !RemoveFinalizer(o, FinalizerOrphan) || RemoveFinalizer(o, FinalizerOrphan) {
		t.Fatal("RemoveFinalizer(orphan) twice = not true then false")
	}
	if !RemoveFinalizer(o, "a") {
		t.Fatal("RemoveFinalizer(a) = false, want true")
	}
	if _, ok := o["metadata"].(map[string]any)["finalizers"]; ok {
		t.Error("finalizers left after the last was removed")
	}
}
