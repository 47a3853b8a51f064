// SPDX-License-Identifier: Apache-2.0

package jsonpatch_test

import (
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
)

// TestMergeRFC7386 runs the examples of RFC 7386, Appendix A.
func TestMergeRFC7386(t *testing.T) {
	tests := []struct{ doc, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"a":1,"e":null}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	}
	for _, tt := range tests {
		got, err := jsonpatch.Merge([]byte(tt.doc), []byte(tt.patch))
		if err != nil || string(got) != tt.want {
			t.Errorf("Merge(%s, %s) = %s, %v, want %s", tt.doc, tt.patch, got, err, tt.want)
		}
	}
}

func TestMerge(t *testing.T) {
	tests := []struct{ doc, patch, want, wantErr string }{
		{`{"n":12345678901234567890}`, `{"m":1.50}`, `{"m":1.50,"n":12345678901234567890}`, ""},
		{`{"a":{"b":1}}`, `{"a":{"c":{"d":null,"e":"<&>"}}}`, `{"a":{"b":1,"c":{"e":"<&>"}}}`, ""},
		{`{"a":1}`, `{}`, `{"a":1}`, ""},
		{`null`, `{"a":null}`, `{}`, ""},
		{`{"a":`, `{}`, "", "decode merge patch target"},
		{`{}`, `{"a":1}}`, "", "decode merge patch: data after the JSON value"},
		{`{}`, ``, "", "decode merge patch: no JSON value"},
	}
	for _, tt := range tests {
		got, err := jsonpatch.Merge([]byte(tt.doc), []byte(tt.patch))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Merge(%s, %s) = %s, %v, want error containing %q", tt.doc, tt.patch, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("Merge(%s, %s) = %s, %v, want %s", tt.doc, tt.patch, got, err, tt.want)
		}
	}
}

// TestMergeValueOwnership checks that MergeValue modifies neither input
// and that the result shares nothing with the patch.
func TestMergeValueOwnership(t *testing.T) {
	doc := mustDecode(t, `{"keep":{"x":1},"change":{"y":2,"z":3},"drop":true}`)
	patch := mustDecode(t, `{"change":{"z":null,"w":[1]},"drop":null,"new":{"n":[{"m":1}]}}`)
	docBefore, patchBefore := jsonpatch.DeepCopy(doc), jsonpatch.DeepCopy(patch)

	got := jsonpatch.MergeValue(doc, patch)
	want := mustDecode(t, `{"keep":{"x":1},"change":{"y":2,"w":[1]},"new":{"n":[{"m":1}]}}`)
	if !jsonpatch.Equal(got, want) {
		t.Fatalf("MergeValue() = %v, want %v", got, want)
	}
	if !jsonpatch.Equal(doc, docBefore) || !jsonpatch.Equal(patch, patchBefore) {
		t.Errorf("MergeValue() modified its inputs: doc = %v, patch = %v", doc, patch)
	}
	// Changing the result must not reach the patch.
	m := got.(map[string]any)
	m["new"].(map[string]any)["n"].([]any)[0].(map[string]any)["m"] = "changed"
	m["change"].(map[string]any)["w"].([]any)[0] = "changed"
	if !jsonpatch.Equal(patch, patchBefore) {
		t.Errorf("changing MergeValue's result changed the patch: %v", patch)
	}
	// An object the patch changed is a copy, not doc's.
	m["change"].(map[string]any)["y"] = "changed"
	if !jsonpatch.Equal(doc, docBefore) {
		t.Errorf("changing a changed object of the result changed doc: %v", doc)
	}
}
