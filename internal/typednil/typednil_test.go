// SPDX-License-Identifier: Apache-2.0

package typednil

import "testing"

func TestIs(t *testing.T) {
	var p *int
	var m map[string]int
	var s []int
	var f func()
	var e error
	n := 1
	for _, tc := range []struct {
		name string
		v    any
		want bool
	}{
		{"nil", nil, true},
		{"nil pointer", p, true},
		{"nil map", m, true},
		{"nil slice", s, true},
		{"nil func", f, true},
		{"nil error", e, true},
		{"pointer", &n, false},
		{"empty map", map[string]int{}, false},
		{"zero int", 0, false},
		{"empty string", "", false},
		{"zero struct", struct{}{}, false},
	} {
		if got := Is(tc.v); got != tc.want {
			t.Errorf("Is(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
