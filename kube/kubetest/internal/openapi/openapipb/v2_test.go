// SPDX-License-Identifier: Apache-2.0

package openapipb

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestV2MatchesGnostic encodes testdata/v2.json, a small document that
// uses every message and field kind of openapi_v2.Document (every
// parameter location and security scheme, file and $ref responses,
// defaults, examples, enums and extensions of every JSON type, strings
// YAML must quote or write as literal blocks), and compares with testdata/v2.pb: gnostic-models
// v0.7.0's ParseDocument and proto.Marshal of the same file, which is
// how kube-apiserver encodes /openapi/v2 (they give the real 1.37.2
// server's bytes for its own document).
func TestV2MatchesGnostic(t *testing.T) {
	data, err := os.ReadFile("testdata/v2.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/v2.pb")
	if err != nil {
		t.Fatal(err)
	}
	got, problems, err := V2(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("problems: %q", problems)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("encoding differs from gnostic's at byte %d (got %d bytes, want %d)", firstDiff(got, want), len(got), len(want))
	}
}

func firstDiff(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// TestV2ReportsWhatItCannotEncode: a key no message knows and a value of
// the wrong type are named by path, and the rest is still encoded.
func TestV2ReportsWhatItCannotEncode(t *testing.T) {
	doc := `{"swagger":"2.0","definitions":{"W":{"type":"object","nullable":true,"properties":{"a":{"maxLength":"3"}},` +
		`"items":[{"type":"string"}]}},"paths":{"/x":{"get":{"responses":{"200":{"description":"ok"}},"bogus":1}},"nope":{}}}`
	got, problems, err := V2([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/definitions/W/nullable: key not encoded",
		"/definitions/W/properties/a/maxLength: want an integer",
		"/definitions/W/items: want an object",
		"/paths/~1x/get/bogus: key not encoded",
		"/paths/nope: key not encoded",
	}
	slices.Sort(problems)
	slices.Sort(want)
	if !slices.Equal(problems, want) {
		t.Errorf("problems:\n got %q\nwant %q", problems, want)
	}
	if !bytes.Contains(got, []byte("\n\x032.0")) {
		t.Errorf("swagger not encoded: %q", got)
	}
}

// TestYAMLText checks the YAML of values whose layout the golden file
// has only once: nesting of mappings and sequences, empty collections,
// literal blocks (each expectation is go-yaml v3's output).
func TestYAMLText(t *testing.T) {
	for doc, want := range map[string]string{
		`{"a":{"b":{"c":[1,{"d":[{"e":1,"f":[[1,2],[]]}]}]}}}`: "a:\n    b:\n        c:\n            - 1\n            - d:\n                - e: 1\n                  f:\n                    - - 1\n                      - 2\n                    - []\n",
		`[[1,2],[[3]],{"a":{}},{}]`:                            "- - 1\n  - 2\n- - - 3\n- a: {}\n- {}\n",
		`{"":1,"true":2,"a b":3}`:                              "\"\": 1\n\"true\": 2\na b: 3\n",
		// Strings with line breaks: literal blocks, as go-yaml writes them.
		`"a\nb"`: "|-\n    a\n    b\n", `"a\n"`: "|\n    a\n", `"a\n\n"`: "|+\n    a\n\n", `"\n"`: "|4+\n\n",
		`" a\nb"`: "|4-\n     a\n    b\n", `"a\n\nb"`: "|-\n    a\n\n    b\n", `"a \nb"`: "\"a \\nb\"\n", `"a\nb "`: "\"a\\nb \"\n",
		`{"k":{"j":"a\nb\n"}}`: "k:\n    j: |\n        a\n        b\n", `[{"k":"a\nb"},["x\ny"]]`: "- k: |-\n    a\n    b\n- - |-\n    x\n    y\n",
		`"plain"`: "plain\n",
		// Keys that are not simple (LONGKEY is 129 bytes): explicit "? key",
		// then ": value".
		`{"LONGKEY":{"a":1},"x":{"LONGKEY":[1,2]},"y":[{"LONGKEY":{}}],"a\nb":{"c":1}}`: "? LONGKEY\n:   a: 1\nx:\n    ? LONGKEY\n    :   - 1\n        - 2\ny:\n    - ? LONGKEY\n      : {}\n? |-\n    a\n    b\n:   c: 1\n",
		`null`: "null\n",
	} {
		long := strings.Repeat("k", 129)
		doc, want = strings.ReplaceAll(doc, "LONGKEY", long), strings.ReplaceAll(want, "LONGKEY", long)
		n, err := parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := yamlText(n); got != want {
			t.Errorf("yamlText(%s) = %q, want %q", doc, got, want)
		}
	}
}
