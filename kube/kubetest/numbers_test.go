// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"strings"
	"testing"
	"testing/synctest"
)

const numCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"nums.exact.example.com"},
"spec":{"group":"exact.example.com","scope":"Namespaced","names":{"plural":"nums","singular":"num","kind":"Num","listKind":"NumList"},
 "versions":[{"name":"v1","served":true,"storage":true,"selectableFields":[{"jsonPath":".spec.i"}],
  "additionalPrinterColumns":[{"name":"I","type":"integer","jsonPath":".spec.i"}],
  "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{
   "i":{"type":"integer"},"i32":{"type":"integer","format":"int32"},"n":{"type":"number"},
   "any":{"x-kubernetes-preserve-unknown-fields":true}}}}}}}]}}`

const nums = "/apis/exact.example.com/v1/namespaces/default/nums"

// Integers are kept exactly, as the real server keeps them (an int64 in
// its unstructured form): 2^53+1 is stored and served as sent, in a
// create, every kind of patch, an apply, a field selector and a Table.
// Other numbers are float64s there: 1.0 and 1e3 are served as 1 and 1000,
// 2^64 rounded, 2^63 in an integer field refused as a number (the real
// server's answers, checked with the harness).
func TestExactIntegers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := newTestServer(t, Options{})
		c.mustDo(201, "POST", crdPath, numCRD)
		create := func(name, spec string) response {
			return c.do("POST", nums, `{"apiVersion":"exact.example.com/v1","kind":"Num","metadata":{"name":"`+name+`"},"spec":`+spec+`}`)
		}
		for _, tc := range []struct{ spec, want string }{
			{`{"i":9007199254740993}`, `"spec":{"i":9007199254740993}`},
			{`{"i":9223372036854775807}`, `"spec":{"i":9223372036854775807}`},
			{`{"i":1.0}`, `"spec":{"i":1}`},
			{`{"i":1e3}`, `"spec":{"i":1000}`},
			{`{"n":9007199254740993}`, `"spec":{"n":9007199254740993}`},
			{`{"n":1.0}`, `"spec":{"n":1}`},
			{`{"any":{"b":1.0,"c":18446744073709551616,"d":-0}}`, `"spec":{"any":{"b":1,"c":18446744073709552000,"d":0}}`},
		} {
			r := create("n", tc.spec)
			if r.code != 201 || !strings.Contains(string(r.body), tc.want) {
				t.Errorf("create with spec %s = %d %s, want %s", tc.spec, r.code, r.body, tc.want)
			}
			c.mustDo(200, "DELETE", nums+"/n", "")
		}
		for _, tc := range []struct{ spec, want string }{
			{`{"i":9223372036854775808}`, `Num.exact.example.com \"n\" is invalid: [spec.i: Invalid value: \"number\": spec.i in body must be of type integer: \"number\", \u003cnil\u003e: Invalid value: \"\": Checked value must be of type integer (default format) in spec.i]`},
			{`{"i32":2147483648}`, `Num.exact.example.com \"n\" is invalid: \u003cnil\u003e: Invalid value: \"\": Checked value must be of type integer with format int32 in spec.i32`},
			{`{"any":{"c":1e400}}`, `Num in version \"v1\" cannot be handled as a Num: json: cannot unmarshal number 1e400 into Go value of type float64`},
		} {
			if r := create("n", tc.spec); r.code < 400 || !strings.Contains(string(r.body), tc.want) {
				t.Errorf("create with spec %s = %d %s, want %s", tc.spec, r.code, r.body, tc.want)
			}
		}

		// An int64 field of a built-in kind takes integers in its range
		// alone, as Go decodes it.
		for _, v := range []string{"9223372036854775808", "1.0", "1e3"} {
			r := c.do("POST", "/api/v1/namespaces/default/pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"activeDeadlineSeconds":`+v+`,"containers":[{"name":"c","image":"x"}]}}`)
			want := `Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal number ` + v + ` into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64`
			if r.code != 400 || !strings.Contains(string(r.body), want) {
				t.Errorf("pod with activeDeadlineSeconds %s = %d %s, want %s", v, r.code, r.body, want)
			}
		}

		create("a", `{"i":9007199254740993}`)
		create("b", `{"i":9007199254740992}`)
		for _, tc := range []struct{ ct, body, want string }{
			{ctJSON, `[{"op":"test","path":"/spec/i","value":9007199254740993},{"op":"replace","path":"/spec/i","value":9007199254740995}]`, `"spec":{"i":9007199254740995}`},
			{ctMerge, `{"spec":{"i":9007199254740997}}`, `"spec":{"i":9007199254740997}`},
		} {
			if r := c.do("PATCH", nums+"/a", tc.body, "Content-Type", tc.ct); r.code != 200 || !strings.Contains(string(r.body), tc.want) {
				t.Errorf("patch %s = %d %s, want %s", tc.body, r.code, r.body, tc.want)
			}
		}
		apply := "apiVersion: exact.example.com/v1\nkind: Num\nmetadata:\n  name: a\nspec:\n  i: 9007199254740999\n"
		if r := c.do("PATCH", nums+"/a?fieldManager=m&force=true", apply, "Content-Type", ctApply); r.code != 200 || !strings.Contains(string(r.body), `"spec":{"i":9007199254740999}`) {
			t.Errorf("apply = %d %s", r.code, r.body)
		}
		list := c.mustDo(200, "GET", nums+"?fieldSelector=spec.i%3D9007199254740999", "")
		if items := list["items"].([]any); len(items) != 1 || field(items[0].(map[string]any), "metadata.name") != "a" {
			t.Errorf("field selector spec.i=9007199254740999: %v, want a alone", list["items"])
		}
		r := c.do("GET", nums+"/a", "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		if !strings.Contains(string(r.body), `"cells":["a",9007199254740999]`) {
			t.Errorf("Table of a = %s, want the integer cell exact", r.body)
		}
	})
}
