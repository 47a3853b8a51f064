// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestCRDPrinterColumns checks the columns a CRD version gets: the
// default Age column, descriptions, priorities, date cells, and the
// columns dropped from the first one whose JSONPath does not parse.
func TestCRDPrinterColumns(t *testing.T) {
	p := crdPrinter(obj{})
	if got := columnsString(p); got != "Name:string:name:0,Age:date::0" || p.columns[1].Description != descCreated {
		t.Errorf("default columns = %s (%q), want Name and Age", got, p.columns[1].Description)
	}
	var v obj
	_ = json.Unmarshal([]byte(`{"additionalPrinterColumns":[
		{"name":"Started","type":"date","jsonPath":".status.started","description":"When."},
		{"name":"Wide","type":"integer","format":"int32","jsonPath":".spec.n","priority":1},
		{"name":"Bad","type":"string","jsonPath":".spec["},
		{"name":"After","type":"string","jsonPath":".spec.x"}]}`), &v)
	p = crdPrinter(v)
	if got := columnsString(p); got != "Name:string:name:0,Started:date::0,Wide:integer:int32:1" {
		t.Errorf("columns = %s, want Name, Started, Wide (Bad and what follows dropped)", got)
	}
	if p.columns[1].Description != "When." || p.columns[2].Description != "Custom resource definition column (in JSONPath format): .spec.n" {
		t.Errorf("descriptions = %q, %q", p.columns[1].Description, p.columns[2].Description)
	}
	for started, want := range map[string]string{
		`"2026-11-23T10:00:00Z"`: `"6h16m"`, `""`: `"\u003cunknown\u003e"`, `"yesterday"`: `"\u003cinvalid\u003e"`,
		`5`: `null`, `"2026-11-23T16:17:30Z"`: `"\u003cinvalid\u003e"`, `"2026-11-23T16:16:31Z"`: `"0s"`,
	} {
		var o obj
		_ = json.Unmarshal([]byte(`{"metadata":{"name":"a"},"spec":{"n":2.9},"status":{"started":`+started+`}}`), &o)
		cells, _ := p.cells(o, printedAt)
		b, _ := json.Marshal(cells)
		if string(b) != `["a",`+want+`,2]` {
			t.Errorf("started %s: cells %s, want [\"a\",%s,2]", started, b, want)
		}
	}
}

func columnsString(p *printer) string {
	var s []string
	for _, c := range p.columns {
		s = append(s, fmt.Sprintf("%s:%s:%s:%d", c.Name, c.Type, c.Format, c.Priority))
	}
	return strings.Join(s, ",")
}

// TestCRDPrinterColumnValidation checks that a CRD's printer columns are
// validated with the real server's messages and field paths.
func TestCRDPrinterColumnValidation(t *testing.T) {
	_, c := newTestServer(t, Options{})
	schema := `"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}`
	for _, tc := range []struct{ versions, want string }{
		{`[{"name":"v1","served":true,"storage":true,"additionalPrinterColumns":[{"name":"","type":"","jsonPath":""},{"name":"A","type":"int","format":"uuid","jsonPath":"spec.x"},{"name":"B","type":"string","jsonPath":".spec["}],` + schema + `}]`,
			`CustomResourceDefinition.apiextensions.k8s.io "bads.x.io" is invalid: [spec.additionalPrinterColumns[0].name: Required value, spec.additionalPrinterColumns[0].type: Required value: must be one of boolean,date,integer,number,string, spec.additionalPrinterColumns[0].JSONPath: Required value, spec.additionalPrinterColumns[1].type: Invalid value: "int": must be one of boolean,date,integer,number,string, spec.additionalPrinterColumns[1].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password, spec.additionalPrinterColumns[1].JSONPath: Invalid value: "spec.x": must be a simple json path starting with .]`},
		{`[{"name":"v1","served":true,"storage":true,"additionalPrinterColumns":[{"name":"A","type":"int","jsonPath":".x"}],` + schema + `},{"name":"v2","served":true,"storage":false,` + schema + `}]`,
			`CustomResourceDefinition.apiextensions.k8s.io "bads.x.io" is invalid: spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "int": must be one of boolean,date,integer,number,string`},
	} {
		r := c.do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
			`{"metadata":{"name":"bads.x.io"},"spec":{"group":"x.io","scope":"Namespaced","names":{"plural":"bads","kind":"Bad"},"versions":`+tc.versions+`}}`)
		if msg, _ := r.json(t)["message"].(string); r.code != 422 || msg != tc.want {
			t.Errorf("create = %d %s\nwant 422 %s", r.code, msg, tc.want)
		}
	}
}
