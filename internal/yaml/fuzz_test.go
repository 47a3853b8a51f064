// SPDX-License-Identifier: Apache-2.0

package yaml

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzParse checks that no input panics, that every error is a
// *SyntaxError with a line inside the input, and that accepted documents
// nest no deeper than MaxDepth and parse the same way twice.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"",
		"apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster:\n    server: https://x:6443\n",
		"a:\n- b: 'c''d'\n  e: \"f\\u00e9\\\n  g\"\n",
		"- - - x\n  - y\n",
		"a: [b, {c: d}, []]\n",
		"{\"a\": [1, null, {\"b\": false}]}",
		"a: |\n  x\n",
		"---\na: b\n...\n",
		"k: v\n  folded\n\n  more # c\n",
		"\t- a",
		"a: 'x\n\n y'",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := ParseNode(data)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("ParseNode error %T %v, want *SyntaxError", err, err)
			}
			if lines := countLines(data); se.Line < 1 || se.Line > lines {
				t.Fatalf("ParseNode error at line %d, input has %d lines: %v", se.Line, lines, err)
			}
			return
		}
		if d := depth(n); d > MaxDepth+1 {
			t.Fatalf("ParseNode returned a tree %d deep, MaxDepth is %d", d, MaxDepth)
		}
		again, err := ParseNode(data)
		if err != nil {
			t.Fatalf("second ParseNode failed: %v", err)
		}
		a, _ := json.Marshal(n.Value())
		b, _ := json.Marshal(again.Value())
		if string(a) != string(b) {
			t.Fatalf("ParseNode is not deterministic: %s then %s", a, b)
		}
	})
}

// countLines counts the lines of data as the parser numbers them.
func countLines(data []byte) int {
	n := 1
	for _, c := range data {
		if c == '\n' {
			n++
		}
	}
	return n
}

// depth returns the number of nested levels of n.
func depth(n *Node) int {
	d := 0
	for _, e := range n.Entries {
		d = max(d, depth(e.Value))
	}
	for _, it := range n.Items {
		d = max(d, depth(it))
	}
	return d + 1
}
