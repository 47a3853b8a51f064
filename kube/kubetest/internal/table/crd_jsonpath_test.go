// SPDX-License-Identifier: Apache-2.0

package table

import (
	"encoding/json"
	"testing"
	"time"
)

// jpDoc is the custom resource the printer-column tests read.
const jpDoc = `{"apiVersion":"x.io/v1","kind":"G","metadata":{"name":"g1","labels":{"app.kubernetes.io/name":"gad","a.b":"c"},"creationTimestamp":"2026-11-23T10:00:00Z"},"spec":{"replicas":3,"ratio":1.5,"enabled":true,"mode":"fast","tags":["a","b","c","d"],"obj":{"z":1,"a":"<x>&","n":null,"f":2.5,"big":123456789012},"big":123456789012,"nil":null,"neg":-4,"zero":0,"e":1e+21,"tiny":1e-07,"s":"line\nbreak","u":"h\u00e9llo","nested":[[1,2],[3]],"items":[{"name":"x","v":1,"ok":true},{"name":"y","v":2.5,"ok":false},{"name":"z","v":3,"tags":["q"]},{"v":"4"}]},"status":{"conditions":[{"type":"Synced","status":"False","count":1},{"type":"Ready","status":"True","count":3,"lastTransitionTime":"2026-11-23T09:00:00Z"}]}}`

// TestPrinterColumnCells checks the cell a printer column of each type
// gives for many JSONPaths. The expectations were produced by the real
// server's table convertor (k8s.io/apiextensions-apiserver v0.36.3, on
// the object decoded as the server decodes it); PARSE-ERROR marks a path
// that does not parse, whose column the server drops.
func TestPrinterColumnCells(t *testing.T) {
	var doc obj
	if err := json.Unmarshal([]byte(jpDoc), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, str, integer, number, boolean string }{
		{".spec.replicas", `"3"`, `3`, `3`, `null`},
		{".spec.ratio", `"1.5"`, `1`, `1.5`, `null`},
		{".spec.enabled", `"true"`, `null`, `null`, `true`},
		{".spec.mode", `"fast"`, `null`, `null`, `null`},
		{".spec.tags", `"[\"a\",\"b\",\"c\",\"d\"]"`, `null`, `null`, `null`},
		{".spec.tags[0]", `"a"`, `null`, `null`, `null`},
		{".spec.tags[-1]", `"d"`, `null`, `null`, `null`},
		{".spec.tags[1:3]", `"b"`, `null`, `null`, `null`},
		{".spec.tags[5]", `null`, `null`, `null`, `null`},
		{".spec.tags[-5]", `null`, `null`, `null`, `null`},
		{".spec.tags[::2]", `"a"`, `null`, `null`, `null`},
		{".spec.tags[0:0]", `null`, `null`, `null`, `null`},
		{".spec.tags[*]", `"a"`, `null`, `null`, `null`},
		{".spec.tags[]", `"a"`, `null`, `null`, `null`},
		{".spec.tags[2:1]", `null`, `null`, `null`, `null`},
		{".spec.tags[0:4:0]", `null`, `null`, `null`, `null`},
		{".spec.big", `"123456789012"`, `123456789012`, `123456789012`, `null`},
		{".spec.nil", `"\u003cno value\u003e"`, `null`, `null`, `null`},
		{".spec.neg", `"-4"`, `-4`, `-4`, `null`},
		{".spec.zero", `"0"`, `0`, `0`, `null`},
		{".spec.e", `"1e+21"`, `-9223372036854775808`, `1e+21`, `null`},
		{".spec.tiny", `"1e-07"`, `0`, `1e-7`, `null`},
		{".spec.s", `"line\nbreak"`, `null`, `null`, `null`},
		{".spec.u", `"héllo"`, `null`, `null`, `null`},
		{".spec.nested", `"[[1,2],[3]]"`, `null`, `null`, `null`},
		{".spec.nested[0]", `"[1,2]"`, `null`, `null`, `null`},
		{".spec.nested[*][0]", `"1"`, `1`, `1`, `null`},
		{".spec.items[?(@.name==\"y\")].v", `"2.5"`, `2`, `2.5`, `null`},
		{".spec.items[?(@.v>1)].name", `null`, `null`, `null`, `null`},
		{".spec.items[?(@.v==1)].name", `null`, `null`, `null`, `null`},
		{".spec.items[?(@.v>=2.5)].name", `null`, `null`, `null`, `null`},
		{".spec.items[?(@.v<3)].name", `null`, `null`, `null`, `null`},
		{".spec.items[?(@.ok==true)].name", `"x"`, `null`, `null`, `null`},
		{".spec.items[?(@.ok)].name", `"x"`, `null`, `null`, `null`},
		{".spec.items[?(@.tags)].name", `"z"`, `null`, `null`, `null`},
		{".spec.items[?(@.name!=\"x\")].name", `"y"`, `null`, `null`, `null`},
		{".spec.items[?(@.name<\"y\")].name", `"x"`, `null`, `null`, `null`},
		{".spec.items[?(@.v==\"4\")].v", `null`, `null`, `null`, `null`},
		{".spec.items[*].name", `"x"`, `null`, `null`, `null`},
		{".spec.items[0,2].name", `"x"`, `null`, `null`, `null`},
		{".spec.items['name']", `null`, `null`, `null`, `null`},
		{".spec['mode']", `"fast"`, `null`, `null`, `null`},
		{".spec[\"mode\"]", `PARSE-ERROR 1`, `PARSE-ERROR 1`, `PARSE-ERROR 1`, `PARSE-ERROR 1`},
		{".status.conditions[?(@.type==\"Ready\")].status", `"True"`, `null`, `null`, `null`},
		{".status.conditions[?(@.type=='Ready')].lastTransitionTime", `"2026-11-23T09:00:00Z"`, `null`, `null`, `null`},
		{".status.conditions[?(@.type==\"Missing\")].status", `null`, `null`, `null`, `null`},
		{".status.conditions[?(@.count>1)].count", `"3"`, `3`, `3`, `null`},
		{".status.conditions[?(@.count>1.5)].count", `null`, `null`, `null`, `null`},
		{".metadata.labels.app\\.kubernetes\\.io/name", `"gad"`, `null`, `null`, `null`},
		{".metadata.labels['a.b']", `null`, `null`, `null`, `null`},
		{".metadata.labels.a\\.b", `"c"`, `null`, `null`, `null`},
		{".metadata.name", `"g1"`, `null`, `null`, `null`},
		{".metadata.creationTimestamp", `"2026-11-23T10:00:00Z"`, `null`, `null`, `null`},
		{".nothere", `null`, `null`, `null`, `null`},
		{".spec.mode.x", `null`, `null`, `null`, `null`},
		{".spec.tags.x", `null`, `null`, `null`, `null`},
		{".spec.replicas[0]", `null`, `null`, `null`, `null`},
		{".spec.mode[0]", `null`, `null`, `null`, `null`},
		{".spec.obj[0]", `null`, `null`, `null`, `null`},
		{".spec.items[?(@.v>1)]", `null`, `null`, `null`, `null`},
		{".spec.items[0]", `"{\"name\":\"x\",\"ok\":true,\"v\":1}"`, `null`, `null`, `null`},
		{".spec.mode}{.spec.replicas", `"fast"`, `null`, `null`, `null`},
		{".spec.x}{.spec.tags[9]", `null`, `null`, `null`, `null`},
		{".spec.mode}text", `"fast"`, `null`, `null`, `null`},
		{".spec.tags[", `PARSE-ERROR 1`, `PARSE-ERROR 1`, `PARSE-ERROR 1`, `PARSE-ERROR 1`},
		{".spec.items[?(@.name==\"x\"]", `PARSE-ERROR 1`, `PARSE-ERROR 1`, `PARSE-ERROR 1`, `PARSE-ERROR 1`},
		{".spec.obj.a", `"\u003cx\u003e\u0026"`, `null`, `null`, `null`},
		{".spec.replicas[*]", `null`, `null`, `null`, `null`},
		{".spec.mode.*", `"102"`, `null`, `null`, `null`},
		{".spec.items[?(@.name=='x')].ok", `"true"`, `null`, `null`, `true`},
		{".spec.items[-1:]", `"{\"v\":\"4\"}"`, `null`, `null`, `null`},
		{".spec.items[?(@.v)].v", `"1"`, `1`, `1`, `null`},
		{".spec.tags[-1:]", `"d"`, `null`, `null`, `null`},
		{".spec.tags[1:]", `"b"`, `null`, `null`, `null`},
		{".spec.tags[:2]", `"a"`, `null`, `null`, `null`},
		{".spec.tags[:-1]", `"a"`, `null`, `null`, `null`},
		{".spec.items[ 0 ].name", `PARSE-ERROR 1`, `PARSE-ERROR 1`, `PARSE-ERROR 1`, `PARSE-ERROR 1`},
		{".spec.items[0, 1].name", `"x"`, `null`, `null`, `null`},
		{".spec.tags[0]}{.spec.tags[1]", `"a"`, `null`, `null`, `null`},
		{".spec.replicas}{range", `"3"`, `3`, `3`, `null`},
		{"$.spec.mode", `"fast"`, `null`, `null`, `null`},
		{"@.spec.mode", `"fast"`, `null`, `null`, `null`},
		{".spec.mode  ", `"fast"`, `null`, `null`, `null`},
		{" .spec.mode", `"fast"`, `null`, `null`, `null`},
	} {
		for typ, want := range map[string]string{"string": tc.str, "integer": tc.integer, "number": tc.number, "boolean": tc.boolean} {
			p := CRDPrinter(obj{"additionalPrinterColumns": []any{obj{"name": "x", "type": typ, "jsonPath": tc.path}}})
			cells, _ := p.Cells(doc, time.Now())
			got := "PARSE-ERROR 1"
			if len(cells) > 1 {
				b, _ := json.Marshal(cells[1])
				got = string(b)
			}
			if got != want {
				t.Errorf("column %s %q = %s, want %s", typ, tc.path, got, want)
			}
		}
	}
}
