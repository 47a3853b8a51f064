// SPDX-License-Identifier: Apache-2.0

package clusterip

import (
	"fmt"
	"iter"
	"slices"
	"testing"
)

type specs []map[string]any

func (s specs) Specs() iter.Seq[map[string]any] { return slices.Values(s) }

func TestAllocateSkipsHeldAddressesAndReportsAFullRange(t *testing.T) {
	held := specs{{"clusterIP": "10.0.0.1"}, {"clusterIPs": []any{"10.0.0.2"}}, nil}
	o := map[string]any{"spec": map[string]any{}}
	if !Allocate(o, held) {
		t.Fatal("Allocate: range reported full")
	}
	if got := o["spec"].(map[string]any)["clusterIP"]; got != "10.0.0.3" {
		t.Errorf("clusterIP = %v, want 10.0.0.3", got)
	}
	var full specs
	for i := 1; i < 255; i++ {
		full = append(full, map[string]any{"clusterIP": fmt.Sprintf("10.0.0.%d", i)})
	}
	o = map[string]any{"spec": map[string]any{}}
	if Allocate(o, full) {
		t.Errorf("Allocate on a full range gave %v", o["spec"])
	}
	if len(o["spec"].(map[string]any)) != 0 {
		t.Errorf("a refused Service was changed: %v", o["spec"])
	}
}
