// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"testing"
)

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
