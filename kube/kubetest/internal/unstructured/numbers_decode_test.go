// SPDX-License-Identifier: Apache-2.0

package unstructured

import (
	"fmt"
	"testing"
)

// DecodeExact's fast paths (no numbers, short integers alone) give what
// its exact path gives: numbers inside strings do not count.
func TestDecodeExactPaths(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want string // %#v of the decoded value
	}{
		{`{"a":"1.5","b":"x\"1e3"}`, `map[string]interface {}{"a":"1.5", "b":"x\"1e3"}`},
		{`{"a":[1,-0,123456789012345],"b":"\\"}`, `map[string]interface {}{"a":[]interface {}{1, 0, 123456789012345}, "b":"\\"}`},
		{`{"a":1234567890123456}`, `map[string]interface {}{"a":1234567890123456}`},
		{`{"a":1.0,"b":[2,1e2,-3]}`, `map[string]interface {}{"a":1, "b":[]interface {}{2, 100, -3}}`},
	} {
		var v any
		if err := DecodeExact([]byte(tc.doc), &v); err != nil {
			t.Fatalf("decode %s: %v", tc.doc, err)
		}
		if got := fmt.Sprintf("%#v", v); got != tc.want {
			t.Errorf("decode %s = %s, want %s", tc.doc, got, tc.want)
		}
	}
	var v any
	_ = DecodeExact([]byte(`{"a":1.0,"b":2}`), &v)
	if m := v.(map[string]any); fmt.Sprintf("%T %T", m["a"], m["b"]) != "float64 int64" {
		t.Errorf("1.0 and 2 decode as %T and %T, want float64 and int64", m["a"], m["b"])
	}
	if err := DecodeExact([]byte(`{"a":1} x`), &v); err == nil || err.Error() != "invalid character 'x' after top-level value" {
		t.Errorf("trailing data: %v", err)
	}
}
