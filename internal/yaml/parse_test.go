// SPDX-License-Identifier: Apache-2.0

package yaml

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// m and s keep the expected values short.
type m = map[string]any
type s = []any

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want any
	}{
		{"empty", "", nil},
		{"only comments", "# a\n\n  # b\n", nil},
		{"document start", "---\na: b\n", m{"a": "b"}},
		{"document start with comment", "--- # hi\na: b\n", m{"a": "b"}},
		{"document end", "a: b\n...\n# after\n", m{"a": "b"}},
		{"trailing empty document", "a: b\n---\n", m{"a": "b"}},
		{"byte order mark", "\ufeffa: b", m{"a": "b"}},
		{"crlf", "a: b\r\nc:\r\n- d\r\n", m{"a": "b", "c": s{"d"}}},
		{"root scalar", "hello", "hello"},
		{"root folded scalar", "hello\n  world", "hello world"},
		{"plain values stay strings", "a: true\nb: 8443\nc: 1.5\nd: no", m{"a": "true", "b": "8443", "c": "1.5", "d": "no"}},
		{"nulls", "a:\nb: ~\nc: null\nd: 'null'\ne: \"\"", m{"a": nil, "b": nil, "c": nil, "d": "null", "e": ""}},
		{"nested mapping", "a:\n  b:\n    c: d\n  e: f\ng: h", m{"a": m{"b": m{"c": "d"}, "e": "f"}, "g": "h"}},
		{"indented sequence", "a:\n  - x\n  - y\n", m{"a": s{"x", "y"}}},
		{"sequence at key indentation", "a:\n- x\n- y\nb: z", m{"a": s{"x", "y"}, "b": "z"}},
		{"compact mappings in sequence", "a:\n- name: x\n  v: 1\n- name: y\n", m{"a": s{m{"name": "x", "v": "1"}, m{"name": "y"}}}},
		{"compact nested sequences", "- - a\n  - b\n- c", s{s{"a", "b"}, "c"}},
		{"empty entries", "-\n- \n-  # c\n", s{nil, nil, nil}},
		{"entry with block on next line", "-\n  a: b\n", s{m{"a": "b"}}},
		{"sequence inside compact mapping", "- a:\n  - x\n  b: y\n- z", s{m{"a": s{"x"}, "b": "y"}, "z"}},
		{"deep kubectl layout", "users:\n- name: u\n  user:\n    exec:\n      args:\n      - get-token\n      env:\n      - name: A\n        value: B\n",
			m{"users": s{m{"name": "u", "user": m{"exec": m{"args": s{"get-token"}, "env": s{m{"name": "A", "value": "B"}}}}}}}},
		{"comments everywhere", "# top\na: b # trailing\n# mid\nc: # empty\n  - d # item\n", m{"a": "b", "c": s{"d"}}},
		{"hash inside values", "a: b#c\nb: 'x # y'\nc: \"#\"", m{"a": "b#c", "b": "x # y", "c": "#"}},
		{"colons inside values", "server: https://1.2.3.4:6443\nt: a:b", m{"server": "https://1.2.3.4:6443", "t": "a:b"}},
		{"spaces around", "a  :   b   \n", m{"a": "b"}},
		{"tabs as separators", "a:\tb\t# c", m{"a": "b"}},
		{"single quotes", "a: 'it''s # not a comment'", m{"a": "it's # not a comment"}},
		{"double quote escapes", `a: "t\tn\nq\"b\\s\/x\x41u\u00e9U\U0001F600z\ e\0"`, m{"a": "t\tn\nq\"b\\s/xAu\u00e9U\U0001F600z e\x00"}},
		{"quoted keys", "'a b': 1\n\"c:d\": 2\n", m{"a b": "1", "c:d": "2"}},
		{"key with dash", "-a: 1\n-b: -2", m{"-a": "1", "-b": "-2"}},
		{"folded plain value", "hint: install the plugin\n  from https://x.example/a#b\nnext: v", m{"hint": "install the plugin from https://x.example/a#b", "next": "v"}},
		{"more-indented dash folds", "- a\n   - b\n- c: x\n    - d", s{"a - b", m{"c": "x - d"}}},
		{"folded plain with blank line", "a: one\n\n  two\n", m{"a": "one\ntwo"}},
		{"folded plain ends at comment", "a: one\n  two # c\nb: x", m{"a": "one two", "b": "x"}},
		{"folded double quoted", "a: \"one\n  two  \n\n  three\\\n  four\"", m{"a": "one two\nthreefour"}},
		{"folded single quoted", "a: 'one\n  # two'\n", m{"a": "one # two"}},
		{"escaped space survives fold", "a: \"x\\ \n  y\"", m{"a": "x  y"}},
		{"empty flow", "preferences: {}\nitems: []\n", m{"preferences": m{}, "items": s{}}},
		{"flow sequence", `args: [get-token, "--x", 'y', 1]`, m{"args": s{"get-token", "--x", "y", "1"}}},
		{"flow mapping", `env: {a: b, "c": [d], e, f: }`, m{"env": m{"a": "b", "c": s{"d"}, "e": nil, "f": nil}}},
		{"flow trailing comma and comment", "a: [x, y, ] # c", m{"a": s{"x", "y"}}},
		{"flow url", "a: [http://x:1/y]", m{"a": s{"http://x:1/y"}}},
		{"root flow yaml", "{a: b}", m{"a": "b"}},
		{"json object", "{\n  \"a\": {\"b\": [1, true, null, \"x\"]},\n  \"c\": 1.5e3\n}", m{"a": m{"b": s{"1", "true", nil, "x"}}, "c": "1.5e3"}},
		{"json empty", "  {}", m{}},
		{"json array", "[1, \"a\"]", s{"1", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseNodePositionsAndQuoting(t *testing.T) {
	in := "a:\n  b: 'true'\n  c: true\nlist:\n- x\n"
	n, err := ParseNode([]byte(in))
	if err != nil {
		t.Fatalf("ParseNode: %v", err)
	}
	b, c := n.Get("a").Get("b"), n.Get("a").Get("c")
	if b.Line != 2 || b.Column != 6 || !b.Quoted || b.Text != "true" {
		t.Errorf("a.b = %+v, want line 2 column 6, quoted \"true\"", b)
	}
	if c.Line != 3 || c.Quoted {
		t.Errorf("a.c = %+v, want line 3, not quoted", c)
	}
	list := n.Get("list")
	if list.Kind != Sequence || list.Line != 5 || list.Items[0].Line != 5 || list.Items[0].Column != 3 {
		t.Errorf("list = %+v, want a sequence at line 5 with its item at column 3", list)
	}
	if e := n.Entries[1]; e.Key != "list" || e.Line != 4 || e.Column != 1 {
		t.Errorf("entry 1 = %+v, want key list at line 4 column 1", e)
	}
	if n.Get("missing") != nil || b.Get("x") != nil || (*Node)(nil).Get("x") != nil {
		t.Errorf("Get of a missing key or on a non-mapping is not nil")
	}

	j, err := ParseNode([]byte("{\n \"a\": \"x\",\n \"b\": true\n}"))
	if err != nil {
		t.Fatalf("ParseNode(json): %v", err)
	}
	if a, b := j.Get("a"), j.Get("b"); a.Line != 2 || !a.Quoted || b.Line != 3 || b.Quoted {
		t.Errorf("json a = %+v, b = %+v, want lines 2 and 3, a quoted, b not", a, b)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		line     int
		contains string
	}{
		{"block scalar literal", "a: |\n  x\n", 1, "block scalars (|) are not supported"},
		{"block scalar folded", "a:\n  b: >-\n    x\n", 2, "block scalars (>) are not supported"},
		{"anchor", "a: &x b", 1, "anchors (&) are not supported"},
		{"alias", "a: *x", 1, "aliases (*) are not supported"},
		{"tag", "a: !!str b", 1, "tags (!) are not supported"},
		{"anchor on entry", "- &x a", 1, "anchors"},
		{"directive", "%YAML 1.2\n---\na: b", 1, "directives"},
		{"complex key", "? a\n: b", 1, "complex keys"},
		{"two documents", "a: b\n---\nc: d", 2, "multiple documents"},
		{"content after end", "a: b\n...\nc: d", 2, "document end marker"},
		{"content on marker line", "--- a: b", 1, "content on the --- line"},
		{"tab indentation", "a:\n\tb: c", 2, "tabs are not allowed"},
		{"tab before entry", "a:\n  -  x\n \t- y", 3, "tabs are not allowed"},
		{"over-indented key", "a: b\n  c: d", 2, "unexpected ':'"},
		{"over-indented after quoted", "a: 'b'\n  c: d", 2, "unexpected indentation"},
		{"under-indented key", "a:\n    b: c\n  d: e", 3, "unexpected indentation: expected a key at column 1"},
		{"under-indented root", "  a: b\nc: d", 2, "expected the end of the document"},
		{"over-indented entry after quoted", "- 'a'\n   - b", 2, "unexpected indentation"},
		{"entry in mapping", "a: b\n- c", 2, "found a sequence entry"},
		{"mapping value in value", "a: b: c", 1, "unexpected ':'"},
		{"entry as inline value", "a: - b", 1, "sequence entry (- ) cannot start here"},
		{"missing colon", "a: b\nc\n", 2, "expected a mapping key"},
		{"duplicate key", "a: 1\nb: 2\na: 3", 3, `duplicate key "a" (first at line 1)`},
		{"duplicate flow key", "a: {x: 1, x: 2}", 1, `duplicate key "x"`},
		{"duplicate json key", "{\"a\": 1,\n\"a\": 2}", 2, `duplicate key "a"`},
		{"unterminated double", "a: \"b\nc: d", 1, "unterminated quoted value"},
		{"unterminated single", "a: 'b", 1, "unterminated"},
		{"bad escape", `a: "\q"`, 1, "invalid escape"},
		{"bad unicode escape", `a: "\uD800"`, 1, "invalid escape"},
		{"text after quoted", `a: "b" c`, 1, "unexpected text after the quoted value"},
		{"multi-line flow", "a: [b,\n  c]", 1, "flow collections spanning lines are not supported"},
		{"flow missing comma", "a: [b c d: e]", 1, "expected ',' or ']'"},
		{"flow bad start", "a: [, b]", 1, `unexpected ','`},
		{"text after flow", "a: {} x", 1, "unexpected text after the flow collection"},
		{"reserved indicator", "a: @b", 1, `unexpected '@'`},
		{"invalid json", "{\n\"a\": 1,\n\"b\" 2}", 3, "invalid JSON"},
		{"truncated json", "{\"a\": [1,", 1, "unexpected end of input"},
		{"json trailing content", "{\"a\": 1}\n{\"b\": 2}", 2, "after the JSON document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("Parse(%q) = %#v, want an error containing %q", tt.in, got, tt.contains)
			}
			se, ok := err.(*SyntaxError)
			if !ok {
				t.Fatalf("Parse(%q) error %T %v, want *SyntaxError", tt.in, err, err)
			}
			if se.Line != tt.line || !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("Parse(%q) error = %q (line %d), want line %d and %q", tt.in, err, se.Line, tt.line, tt.contains)
			}
		})
	}
}

func TestParseDepthLimit(t *testing.T) {
	tests := map[string]string{
		"block sequences": strings.Repeat("- ", MaxDepth+2) + "x",
		"block mappings":  nestedMappings(MaxDepth + 2),
		"flow":            "a: " + strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2),
		"json":            strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2),
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(in))
			if err == nil || !strings.Contains(err.Error(), "nesting deeper than") {
				t.Errorf("Parse(%d levels) error = %v, want a nesting error", MaxDepth+2, err)
			}
		})
	}
	if _, err := Parse([]byte(nestedMappings(MaxDepth - 1))); err != nil {
		t.Errorf("Parse(%d levels of mappings) error = %v, want nil", MaxDepth-1, err)
	}
}

// nestedMappings returns n mappings, each the value of the one above.
func nestedMappings(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	b.WriteString(strings.Repeat(" ", n) + "v")
	return b.String()
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Null: "null", Scalar: "scalar", Mapping: "mapping", Sequence: "sequence", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

// TestJSONAgreesWithEncodingJSON: a JSON document is read when
// encoding/json reads it, and refused when it refuses it.
func TestJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"a": 1`, `{"a": 1,}`, `[1, 2`, `[1,]`, `[,1]`, `{,}`, `{"a" 1}`, `{"a": tru}`, `{"a": 01}`,
		`{"a": "\x"}`, `{"a": "\u00e9"}`, `{"a": -1.5e3, "b": [true, false, null]}`, `[]`, `{}`, `[{}]`,
		`{"a": 1}}`, `{1: 2}`, `"s"`, `nul`, `{"a":"b"  ,  "c" : [ ] }`,
	} {
		var v any
		want := json.Unmarshal([]byte(in), &v)
		_, err := parseJSON([]byte(in))
		if (err == nil) != (want == nil) {
			t.Errorf("parseJSON(%q) error %v; encoding/json's %v", in, err, want)
		}
	}
}
