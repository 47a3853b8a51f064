// SPDX-License-Identifier: Apache-2.0

package disruption

import "testing"

func TestCharge(t *testing.T) {
	budget := func(gen, observed, allowed int64) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": "b", "generation": gen},
			"status": map[string]any{"observedGeneration": observed, "disruptionsAllowed": allowed,
				"desiredHealthy": int64(2), "currentHealthy": int64(2)}}
	}
	tests := []struct {
		name string
		b    map[string]any
		want Reason
		ok   bool
	}{
		{"allowed", budget(1, 1, 1), 0, true},
		{"status behind", budget(2, 1, 1), Busy, false},
		{"none allowed", budget(1, 1, 0), Exhausted, false},
		{"negative", budget(1, 1, -1), Forbidden, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Charge(tt.b, "p", "2026-12-06T00:00:00Z")
			if (r == nil) != tt.ok || (r != nil && r.Why != tt.want) {
				t.Fatalf("Charge(%s) = %+v, want ok %v or reason %v", tt.name, r, tt.ok, tt.want)
			}
			if !tt.ok {
				return
			}
			st := tt.b["status"].(map[string]any)
			if st["disruptionsAllowed"] != int64(0) || st["disruptedPods"].(map[string]any)["p"] == nil {
				t.Errorf("after Charge, status = %v, want disruptionsAllowed 0 and p in disruptedPods", st)
			}
		})
	}
}
