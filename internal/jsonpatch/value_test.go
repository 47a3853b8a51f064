// SPDX-License-Identifier: Apache-2.0

package jsonpatch_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
)

// mustDecode decodes JSON text for a test, numbers as json.Number.
func mustDecode(t testing.TB, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return v
}

func TestEqual(t *testing.T) {
	n := func(s string) json.Number { return json.Number(s) }
	tests := []struct {
		a, b any
		want bool
	}{
		{nil, nil, true},
		{nil, false, false},
		{true, true, true},
		{true, false, false},
		{"a", "a", true},
		{"1", 1.0, false},
		{1.0, 1.0, true},
		{1.0, n("1"), true},
		{n("1"), n("1.0"), true},
		{n("1"), n("1e0"), true},
		{n("100"), n("1E2"), true},
		{n("0.001"), n("1e-3"), true},
		{n("-0"), n("0"), true},
		{n("0.0"), 0, true},
		{n("-1.5"), -1.5, true},
		{n("1.5"), -1.5, false},
		{0.1, n("0.1"), true},
		{0.1, n("0.10000000000000001"), false},
		{1e21, n("1e21"), true},
		{n("12345678901234567890"), n("12345678901234567891"), false},
		{n("12345678901234567890"), uint64(12345678901234567890), true},
		{int64(-3), -3.0, true},
		{int(7), float32(7), true},
		{n("1e99999999999999999999"), n("1e99999999999999999999"), true},
		{n("1e99999999999999999999"), n("10e99999999999999999998"), false}, // unparsable exponents compare as text
		{n("x"), n("x"), true},
		{n("1"), "1", false},
		{[]any{1.0, "a"}, []any{n("1"), "a"}, true},
		{[]any{1.0, "a"}, []any{"a", 1.0}, false},
		{[]any{}, []any{nil}, false},
		{map[string]any{"a": 1.0, "b": nil}, map[string]any{"b": nil, "a": n("1")}, true},
		{map[string]any{"a": nil}, map[string]any{"b": nil}, false},
		{map[string]any{}, []any{}, false},
		{map[string]string{"a": "b"}, map[string]string{"a": "b"}, true},
		{map[string]string{"a": "b"}, map[string]any{"a": "b"}, false},
	}
	for _, tt := range tests {
		if got := jsonpatch.Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("Equal(%#v, %#v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := jsonpatch.Equal(tt.b, tt.a); got != tt.want {
			t.Errorf("Equal(%#v, %#v) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestDeepCopy(t *testing.T) {
	orig := map[string]any{"a": []any{map[string]any{"b": "c"}, 1.0}, "n": nil}
	cp := jsonpatch.DeepCopy(orig).(map[string]any)
	if !jsonpatch.Equal(cp, orig) {
		t.Fatalf("DeepCopy(%v) = %v, want an equal value", orig, cp)
	}
	cp["a"].([]any)[0].(map[string]any)["b"] = "changed"
	cp["a"].([]any)[1] = 2.0
	cp["x"] = true
	want := map[string]any{"a": []any{map[string]any{"b": "c"}, 1.0}, "n": nil}
	if !jsonpatch.Equal(orig, want) {
		t.Errorf("changing DeepCopy's result changed the original: %v, want %v", orig, want)
	}
	for _, v := range []any{nil, "s", 1.5, true, json.Number("3")} {
		if got := jsonpatch.DeepCopy(v); got != v {
			t.Errorf("DeepCopy(%#v) = %#v, want %#v", v, got, v)
		}
	}
}
