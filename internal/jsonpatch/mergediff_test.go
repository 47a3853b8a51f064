// SPDX-License-Identifier: Apache-2.0

package jsonpatch_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
)

func TestCreateMerge(t *testing.T) {
	tests := []struct{ name, before, after, want string }{
		{"equal", `{"a":1,"b":{"c":[1,2]}}`, `{"b":{"c":[1,2]},"a":1.0}`, `{}`},
		{"changed scalar", `{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{"added", `{"a":"b"}`, `{"a":"b","c":{"d":1}}`, `{"c":{"d":1}}`},
		{"removed key is null", `{"a":"b","c":"d"}`, `{"a":"b"}`, `{"c":null}`},
		{"removed map key, nested", `{"metadata":{"labels":{"x":"1","y":"2"}}}`, `{"metadata":{"labels":{"y":"2"}}}`, `{"metadata":{"labels":{"x":null}}}`},
		{"whole map removed", `{"metadata":{"labels":{"x":"1"},"name":"n"}}`, `{"metadata":{"name":"n"}}`, `{"metadata":{"labels":null}}`},
		{"array replaced whole", `{"f":["a","b","c"]}`, `{"f":["a","c"]}`, `{"f":["a","c"]}`},
		{"array of objects replaced whole", `{"c":[{"type":"A","s":"T"},{"type":"B","s":"F"}]}`, `{"c":[{"type":"A","s":"T"},{"type":"B","s":"T"}]}`,
			`{"c":[{"s":"T","type":"A"},{"s":"T","type":"B"}]}`},
		{"type change", `{"a":{"b":1}}`, `{"a":"x"}`, `{"a":"x"}`},
		{"object from scalar", `{"a":"x"}`, `{"a":{"b":1}}`, `{"a":{"b":1}}`},
		{"null in after, absent before", `{}`, `{"a":null}`, `{}`},
		{"null in after, set before", `{"a":1}`, `{"a":null}`, `{"a":null}`},
		{"null in before, absent after", `{"a":null}`, `{}`, `{}`},
		{"big integers exact", `{"n":12345678901234567890}`, `{"n":12345678901234567891}`, `{"n":12345678901234567891}`},
		{"not objects", `[1]`, `[2]`, `[2]`},
		{"empty object kept when new", `{}`, `{"a":{}}`, `{"a":{}}`},
		{"empty object unchanged", `{"a":{}}`, `{"a":{}}`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, after := decodeJSON(t, tt.before), decodeJSON(t, tt.after)
			b0, a0 := jsonpatch.DeepCopy(before), jsonpatch.DeepCopy(after)
			patch := jsonpatch.CreateMerge(before, after)
			got, err := json.Marshal(patch)
			if err != nil || string(got) != tt.want {
				t.Errorf("CreateMerge(%s, %s) = %s, %v, want %s", tt.before, tt.after, got, err, tt.want)
			}
			if !reflect.DeepEqual(before, b0) || !reflect.DeepEqual(after, a0) {
				t.Errorf("CreateMerge(%s, %s) modified its arguments", tt.before, tt.after)
			}
			checkMergeDiff(t, before, after, patch)
		})
	}
}

// FuzzCreateMerge checks that the patch turns before into after, but
// for null members.
func FuzzCreateMerge(f *testing.F) {
	for _, s := range [][2]string{
		{`{"a":"b"}`, `{"a":"c"}`},
		{`{"a":{"b":"c","d":[1]}}`, `{"a":{"d":[2]},"e":null}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`},
		{`{"a":"b"}`, `["c"]`},
		{`{"metadata":{"labels":{"a":"1","b":"2"}}}`, `{"metadata":{"labels":{"c":"3"},"annotations":{"x":[null]}}}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, bb, ab []byte) {
		before, ok1 := decodeDoc(bb)
		after, ok2 := decodeDoc(ab)
		if !ok1 || !ok2 {
			return
		}
		checkMergeDiff(t, before, after, jsonpatch.CreateMerge(before, after))
	})
}

func checkMergeDiff(t *testing.T, before, after, patch any) {
	t.Helper()
	// A merge patch cannot tell a null member from an absent one:
	// compare without them.
	want := jsonpatch.MergeValue(nil, after)
	if got := jsonpatch.MergeValue(nil, jsonpatch.MergeValue(before, patch)); !jsonpatch.Equal(got, want) {
		t.Errorf("MergeValue(%v, CreateMerge(%v, %v)) = %v, want %v", before, before, after, got, want)
	}
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	v, ok := decodeDoc([]byte(s))
	if !ok {
		t.Fatalf("bad JSON %s", s)
	}
	return v
}
