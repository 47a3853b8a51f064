// SPDX-License-Identifier: Apache-2.0

package jsonpatch_test

import (
	"encoding/json"
	"hash/maphash"
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

// num is a json.Number, for short.
func num(s string) json.Number { return json.Number(s) }

// equalCases are pairs of values and whether they are equal, for Equal and
// Hash.
var equalCases = []struct {
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
	{1.0, num("1"), true},
	{num("1"), num("1.0"), true},
	{num("1"), num("1e0"), true},
	{num("100"), num("1E2"), true},
	{num("0.001"), num("1e-3"), true},
	{num("-0"), num("0"), true},
	{num("0.0"), 0, true},
	{num("-1.5"), -1.5, true},
	{num("1.5"), -1.5, false},
	{0.1, num("0.1"), true},
	{0.1, num("0.10000000000000001"), false},
	{1e21, num("1e21"), true},
	{num("12345678901234567890"), num("12345678901234567891"), false},
	{num("12345678901234567890"), uint64(12345678901234567890), true},
	{int64(-3), -3.0, true},
	{int(7), float32(7), true},
	{num("1e99999999999999999999"), num("1e99999999999999999999"), true},
	{num("1e99999999999999999999"), num("10e99999999999999999998"), false}, // unparsable exponents compare as text
	{num("x"), num("x"), true},
	{num("1"), "1", false},
	{[]any{1.0, "a"}, []any{num("1"), "a"}, true},
	{[]any{1.0, "a"}, []any{"a", 1.0}, false},
	{[]any{}, []any{nil}, false},
	{map[string]any{"a": 1.0, "b": nil}, map[string]any{"b": nil, "a": num("1")}, true},
	{map[string]any{"a": nil}, map[string]any{"b": nil}, false},
	{map[string]any{}, []any{}, false},
	{map[string]string{"a": "b"}, map[string]string{"a": "b"}, true},
	{map[string]string{"a": "b"}, map[string]any{"a": "b"}, false},
}

func TestEqual(t *testing.T) {
	for _, tt := range equalCases {
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

// TestHashAgreesWithEqual: equal values hash alike; the unequal pairs
// here hash apart (a 64-bit collision among them would be a bug, not
// bad luck).
func TestHashAgreesWithEqual(t *testing.T) {
	seed := maphash.MakeSeed()
	cases := append(equalCases[:len(equalCases):len(equalCases)], []struct {
		a, b any
		want bool
	}{
		{mustDecode(t, `{"b":[1,{"c":null}],"a":"x"}`), mustDecode(t, `{"a":"x","b":[1.0,{"c":null}]}`), true},
		{mustDecode(t, `{"a":1,"b":2}`), mustDecode(t, `{"a":2,"b":1}`), false},
		{mustDecode(t, `[[1],[2]]`), mustDecode(t, `[[1,2]]`), false},
		{mustDecode(t, `["ab","c"]`), mustDecode(t, `["a","bc"]`), false},
		{mustDecode(t, `{"a":{}}`), mustDecode(t, `{"a":[]}`), false},
	}...)
	for _, tt := range cases {
		ha, hb := jsonpatch.Hash(seed, tt.a), jsonpatch.Hash(seed, tt.b)
		if (ha == hb) != tt.want {
			t.Errorf("Hash(%#v) == Hash(%#v) is %v, want %v (Equal: %v)", tt.a, tt.b, ha == hb, tt.want, jsonpatch.Equal(tt.a, tt.b))
		}
	}
}
