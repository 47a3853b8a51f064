// SPDX-License-Identifier: Apache-2.0

package jsonpatch_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
)

// TestApplyRFC6902 runs the examples of RFC 6902, Appendix A. want is the
// resulting document, or "" when the patch must fail with an error
// containing wantErr.
func TestApplyRFC6902(t *testing.T) {
	tests := []struct {
		name, doc, patch, want, wantErr string
	}{
		{"A.1 adding an object member", `{"foo":"bar"}`,
			`[{"op":"add","path":"/baz","value":"qux"}]`, `{"baz":"qux","foo":"bar"}`, ""},
		{"A.2 adding an array element", `{"foo":["bar","baz"]}`,
			`[{"op":"add","path":"/foo/1","value":"qux"}]`, `{"foo":["bar","qux","baz"]}`, ""},
		{"A.3 removing an object member", `{"baz":"qux","foo":"bar"}`,
			`[{"op":"remove","path":"/baz"}]`, `{"foo":"bar"}`, ""},
		{"A.4 removing an array element", `{"foo":["bar","qux","baz"]}`,
			`[{"op":"remove","path":"/foo/1"}]`, `{"foo":["bar","baz"]}`, ""},
		{"A.5 replacing a value", `{"baz":"qux","foo":"bar"}`,
			`[{"op":"replace","path":"/baz","value":"boo"}]`, `{"baz":"boo","foo":"bar"}`, ""},
		{"A.6 moving a value", `{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`,
			`[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`,
			`{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}`, ""},
		{"A.7 moving an array element", `{"foo":["all","grass","cows","eat"]}`,
			`[{"op":"move","from":"/foo/1","path":"/foo/3"}]`, `{"foo":["all","cows","eat","grass"]}`, ""},
		{"A.8 testing a value: success", `{"baz":"qux","foo":["a",2,"c"]}`,
			`[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]`,
			`{"baz":"qux","foo":["a",2,"c"]}`, ""},
		{"A.9 testing a value: error", `{"baz":"qux"}`,
			`[{"op":"test","path":"/baz","value":"bar"}]`, "", `test "/baz" failed: value is "qux", want "bar"`},
		{"A.10 adding a nested member object", `{"foo":"bar"}`,
			`[{"op":"add","path":"/child","value":{"grandchild":{}}}]`, `{"child":{"grandchild":{}},"foo":"bar"}`, ""},
		{"A.11 ignoring unrecognized elements", `{"foo":"bar"}`,
			`[{"op":"add","path":"/baz","value":"qux","xyz":123}]`, `{"baz":"qux","foo":"bar"}`, ""},
		{"A.12 adding to a nonexistent target", `{"foo":"bar"}`,
			`[{"op":"add","path":"/baz/bat","value":"qux"}]`, "", `add "/baz/bat": the object at "" has no member "baz"`},
		{"A.13 invalid JSON patch document", `{"foo":"bar"}`,
			`[{"op":"add","path":"/baz","value":"qux","op":"remove"}]`, "", `operation 0: member "op" appears twice`},
		{"A.14 ~ escape ordering", `{"/":9,"~1":10}`,
			`[{"op":"test","path":"/~01","value":10}]`, `{"/":9,"~1":10}`, ""},
		{"A.15 comparing strings and numbers", `{"/":9,"~1":10}`,
			`[{"op":"test","path":"/~01","value":"10"}]`, "", `test "/~01" failed: value is 10, want "10"`},
		{"A.16 adding an array value", `{"foo":["bar"]}`,
			`[{"op":"add","path":"/foo/-","value":["abc","def"]}]`, `{"foo":["bar",["abc","def"]]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonpatch.Apply([]byte(tt.doc), []byte(tt.patch))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Apply(%s, %s) = %s, %v, want error containing %q", tt.doc, tt.patch, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("Apply(%s, %s) = %s, %v, want %s", tt.doc, tt.patch, got, err, tt.want)
			}
		})
	}
}

// TestApply covers what Appendix A leaves out: pointers, indices, the
// root, move and copy.
func TestApply(t *testing.T) {
	tests := []struct {
		name, doc, patch, want, wantErr string
	}{
		{"add replaces an existing member", `{"a":1}`, `[{"op":"add","path":"/a","value":2}]`, `{"a":2}`, ""},
		{"add explicit null", `{}`, `[{"op":"add","path":"/a","value":null}]`, `{"a":null}`, ""},
		{"add member named empty", `{}`, `[{"op":"add","path":"/","value":1}]`, `{"":1}`, ""},
		{"add at array end by index", `[1,2]`, `[{"op":"add","path":"/2","value":3}]`, `[1,2,3]`, ""},
		{"add at array start", `[1,2]`, `[{"op":"add","path":"/0","value":0}]`, `[0,1,2]`, ""},
		{"add past array end", `[1,2]`, `[{"op":"add","path":"/3","value":3}]`, "", "index 3 is out of range for an array of length 2"},
		{"add with leading zero", `[1,2]`, `[{"op":"add","path":"/01","value":3}]`, "", `"01" is not an array index`},
		{"add negative index", `[1,2]`, `[{"op":"add","path":"/-1","value":3}]`, "", `"-1" is not an array index`},
		{"add huge index", `[1]`, `[{"op":"add","path":"/99999999999999999999","value":3}]`, "", "out of range"},
		{"add into a string", `{"a":"s"}`, `[{"op":"add","path":"/a/b","value":3}]`, "", `the value at "/a" is a string, not an object or array`},
		{"add replaces the root", `{"a":1}`, `[{"op":"add","path":"","value":[1]}]`, `[1]`, ""},
		{"replace the root", `{"a":1}`, `[{"op":"replace","path":"","value":"x"}]`, `"x"`, ""},
		{"replace missing member", `{"a":1}`, `[{"op":"replace","path":"/b","value":2}]`, "", `the object at "" has no member "b"`},
		{"replace with dash", `[1]`, `[{"op":"replace","path":"/-","value":2}]`, "", "'-' names the position after the last element"},
		{"remove last element", `[1,2]`, `[{"op":"remove","path":"/1"}]`, `[1]`, ""},
		{"remove out of range", `[1,2]`, `[{"op":"remove","path":"/2"}]`, "", "index 2 is out of range for an array of length 2"},
		{"remove missing", `{"a":{}}`, `[{"op":"remove","path":"/a/b"}]`, "", `remove "/a/b": the object at "/a" has no member "b"`},
		{"remove the root", `{}`, `[{"op":"remove","path":""}]`, "", "cannot remove the whole document"},
		{"escaped tokens", `{"a/b":{"c~d":1}}`, `[{"op":"replace","path":"/a~1b/c~0d","value":2}]`, `{"a/b":{"c~d":2}}`, ""},
		{"bad escape", `{}`, `[{"op":"add","path":"/a~2","value":1}]`, "", `invalid path "/a~2": invalid escape`},
		{"pointer without slash", `{}`, `[{"op":"add","path":"a","value":1}]`, "", "a pointer must be empty or start with '/'"},
		{"numeric member name in object", `{"0":"x"}`, `[{"op":"replace","path":"/0","value":"y"}]`, `{"0":"y"}`, ""},
		{"move into itself", `{"a":{"b":{}}}`, `[{"op":"move","from":"/a","path":"/a/b/c"}]`, "", `cannot move "/a" into itself`},
		{"move to a sibling with a common prefix", `{"a":1}`, `[{"op":"move","from":"/a","path":"/ab"}]`, `{"ab":1}`, ""},
		{"move onto itself", `{"a":1}`, `[{"op":"move","from":"/a","path":"/a"}]`, `{"a":1}`, ""},
		{"move missing onto itself", `{"a":1}`, `[{"op":"move","from":"/b","path":"/b"}]`, "", `has no member "b"`},
		{"move to the root", `{"a":{"b":1}}`, `[{"op":"move","from":"/a","path":""}]`, `{"b":1}`, ""},
		{"move array element to the end", `[1,2,3]`, `[{"op":"move","from":"/0","path":"/-"}]`, `[2,3,1]`, ""},
		{"move missing", `{}`, `[{"op":"move","from":"/x","path":"/y"}]`, "", `move "/x": the object at "" has no member "x"`},
		{"copy", `{"a":{"b":1}}`, `[{"op":"copy","from":"/a","path":"/c"},{"op":"replace","path":"/c/b","value":2}]`, `{"a":{"b":1},"c":{"b":2}}`, ""},
		{"copy the root", `{"a":1}`, `[{"op":"copy","from":"","path":"/b"}]`, `{"a":1,"b":{"a":1}}`, ""},
		{"copy needs from", `{}`, `[{"op":"copy","path":"/b"}]`, "", `copy needs member "from"`},
		{"add needs value", `{}`, `[{"op":"add","path":"/b"}]`, "", `add needs member "value"`},
		{"unknown op", `{}`, `[{"op":"merge","path":"/b"}]`, "", `unknown op "merge"`},
		{"op not a string", `{}`, `[{"op":1,"path":"/b"}]`, "", `member "op" must be a string`},
		{"missing path", `{}`, `[{"op":"remove"}]`, "", `missing member "path"`},
		{"patch not an array", `{}`, `{"op":"remove","path":"/a"}`, "", "a patch must be a JSON array"},
		{"patch null", `{}`, `null`, "", "a patch must be a JSON array"},
		{"operation not an object", `{}`, `[1]`, "", "operation 0: an operation must be a JSON object"},
		{"empty patch", `{"a":1}`, `[]`, `{"a":1}`, ""},
		{"test object, members in any order", `{"a":{"x":1,"y":[1,2]}}`, `[{"op":"test","path":"/a","value":{"y":[1,2.0],"x":1e0}}]`, `{"a":{"x":1,"y":[1,2]}}`, ""},
		{"test the root", `[1]`, `[{"op":"test","path":"","value":[1]}]`, `[1]`, ""},
		{"test a missing member", `{"a":{}}`, `[{"op":"test","path":"/a/b","value":1}]`, "", `apply json patch: operation 0: test "/a/b" failed: the object at "/a" has no member "b"`},
		{"test null", `{"a":null}`, `[{"op":"test","path":"/a","value":null}]`, `{"a":null}`, ""},
		{"big integers keep their digits", `{"n":12345678901234567890}`, `[{"op":"add","path":"/m","value":98765432109876543210}]`, `{"m":98765432109876543210,"n":12345678901234567890}`, ""},
		{"no HTML escaping", `{}`, `[{"op":"add","path":"/a","value":"<&>"}]`, `{"a":"<&>"}`, ""},
		{"later operation fails", `{"a":1}`, `[{"op":"remove","path":"/a"},{"op":"remove","path":"/a"}]`, "", `apply json patch: operation 1: remove "/a"`},
		{"bad document", `{"a":`, `[]`, "", "decode json patch target"},
		{"trailing data", `{} x`, `[]`, "", "data after the JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonpatch.Apply([]byte(tt.doc), []byte(tt.patch))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Apply(%s, %s) = %s, %v, want error containing %q", tt.doc, tt.patch, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("Apply(%s, %s) = %s, %v, want %s", tt.doc, tt.patch, got, err, tt.want)
			}
		})
	}
}

func TestApplyValueErrorTypes(t *testing.T) {
	doc := mustDecode(t, `{"a":{"b":[1,2]}}`)
	tests := []struct {
		patch    string
		wantTest bool // errors.As finds a *TestFailedError
		wantPath string
	}{
		{`[{"op":"test","path":"/a/b/0","value":2}]`, true, ""},
		{`[{"op":"test","path":"/a/c","value":2}]`, true, "/a/c"},
		{`[{"op":"remove","path":"/a/b/5"}]`, false, "/a/b/5"},
		{`[{"op":"add","path":"/x/y","value":1}]`, false, "/x/y"},
		{`[{"op":"copy","from":"/q","path":"/r"}]`, false, "/q"},
	}
	for _, tt := range tests {
		ops, err := jsonpatch.ParseOperations([]byte(tt.patch))
		if err != nil {
			t.Fatalf("ParseOperations(%s) error: %v", tt.patch, err)
		}
		got, err := jsonpatch.ApplyValue(doc, ops)
		if err == nil || got != nil {
			t.Fatalf("ApplyValue(%s) = %v, %v, want nil and an error", tt.patch, got, err)
		}
		var tf *jsonpatch.TestFailedError
		if isTest := errors.As(err, &tf); isTest != tt.wantTest {
			t.Errorf("ApplyValue(%s) error %v: errors.As(*TestFailedError) = %v, want %v", tt.patch, err, isTest, tt.wantTest)
		}
		var pe *jsonpatch.PathError
		if isPath := errors.As(err, &pe); isPath != (tt.wantPath != "") || (isPath && pe.Path != tt.wantPath) {
			t.Errorf("ApplyValue(%s) error %v: *PathError = %+v, want Path %q", tt.patch, err, pe, tt.wantPath)
		}
	}
	var tf *jsonpatch.TestFailedError
	_, err := jsonpatch.ApplyValue(doc, []jsonpatch.Operation{{Op: "test", Path: "/a/b/1", Value: json.RawMessage(`3`)}})
	if !errors.As(err, &tf) || tf.Path != "/a/b/1" || !jsonpatch.Equal(tf.Got, 2) || !jsonpatch.Equal(tf.Want, 3) {
		t.Errorf("ApplyValue(test /a/b/1 = 3) error = %#v, want *TestFailedError{Path: /a/b/1, Got: 2, Want: 3}", err)
	}
}

// TestApplyValueAllOrNothing checks that a failing patch leaves its input
// untouched, even after earlier operations changed the working copy.
func TestApplyValueAllOrNothing(t *testing.T) {
	doc := map[string]any{"a": []any{1.0, 2.0}, "m": map[string]any{"k": "v"}}
	ops := []jsonpatch.Operation{
		{Op: "add", Path: "/a/-", Value: json.RawMessage(`3`)},
		{Op: "remove", Path: "/m/k"},
		{Op: "replace", Path: "/a/0", Value: json.RawMessage(`9`)},
		{Op: "test", Path: "/a/0", Value: json.RawMessage(`1`)},
	}
	got, err := jsonpatch.ApplyValue(doc, ops)
	if err == nil || got != nil {
		t.Fatalf("ApplyValue() = %v, %v, want nil and an error", got, err)
	}
	want := map[string]any{"a": []any{1.0, 2.0}, "m": map[string]any{"k": "v"}}
	if !jsonpatch.Equal(doc, want) {
		t.Errorf("after a failed ApplyValue, doc = %v, want %v", doc, want)
	}
	got, err = jsonpatch.ApplyValue(doc, ops[:3])
	if err != nil || !jsonpatch.Equal(got, mustDecode(t, `{"a":[9,2,3],"m":{}}`)) {
		t.Errorf("ApplyValue(first three) = %v, %v, want {a:[9,2,3], m:{}}", got, err)
	}
	if !jsonpatch.Equal(doc, want) {
		t.Errorf("after ApplyValue, doc = %v, want %v", doc, want)
	}
}

func TestParseOperationsRoundTrip(t *testing.T) {
	const patch = `[{"op":"add","path":"/a","value":null},{"op":"remove","path":"/b"},{"op":"copy","path":"/c","from":""},{"op":"test","path":"/d","value":{"x":[1]}}]`
	ops, err := jsonpatch.ParseOperations([]byte(patch))
	if err != nil {
		t.Fatalf("ParseOperations(%s) error: %v", patch, err)
	}
	if string(ops[0].Value) != "null" || ops[1].Value != nil {
		t.Errorf("ParseOperations(%s): values %q, %q, want \"null\" and nil", patch, ops[0].Value, ops[1].Value)
	}
	out, err := json.Marshal(ops)
	const want = `[{"op":"add","path":"/a","value":null},{"op":"remove","path":"/b"},{"op":"copy","path":"/c","from":""},{"op":"test","path":"/d","value":{"x":[1]}}]`
	if err != nil || string(out) != want {
		t.Errorf("json.Marshal(ParseOperations(%s)) = %s, %v, want %s", patch, out, err, want)
	}
}
