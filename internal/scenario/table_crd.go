// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// This file checks the Tables of custom resources: the CRD's
// additionalPrinterColumns with their types (integers, numbers, booleans,
// strings, dates as ages, objects and lists as JSON), JSONPath filters,
// missing fields and wrong types (empty cells), -o wide priorities, the
// Age column a version without printer columns gets, and the default
// columns of the CRDs themselves.

func testTableCustomResource(t *testing.T, f *fixture) {
	suffix := randomSuffix()
	plural, kind := "gadgets"+suffix, "Gadget"+suffix
	crdName := plural + "." + widgetGroup
	code, body := f.raw(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", `{"metadata":{"name":"`+crdName+`"},"spec":{
		"group":"`+widgetGroup+`","scope":"Namespaced","names":{"plural":"`+plural+`","kind":"`+kind+`"},
		"versions":[{"name":"v1","served":true,"storage":true,"additionalPrinterColumns":[{"name":"A","type":"int","jsonPath":"spec.a"}],
			"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`, "", "application/json")
	if want := `spec.additionalPrinterColumns[0].type: Invalid value: \"int\": must be one of boolean,date,integer,number,string, spec.additionalPrinterColumns[0].JSONPath: Invalid value: \"spec.a\": must be a simple json path starting with .`; code != 422 || !strings.Contains(string(body), want) {
		t.Errorf("CRD with bad printer columns = %d %s, want 422 with %s", code, body, want)
	}
	f.post(t, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", `{"metadata":{"name":"`+crdName+`"},"spec":{
		"group":"`+widgetGroup+`","scope":"Namespaced","names":{"plural":"`+plural+`","kind":"`+kind+`"},
		"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
			"additionalPrinterColumns":[
				{"name":"Replicas","type":"integer","jsonPath":".spec.replicas"},
				{"name":"Ratio","type":"number","format":"float","jsonPath":".spec.ratio"},
				{"name":"Enabled","type":"boolean","jsonPath":".spec.enabled"},
				{"name":"Mode","type":"string","jsonPath":".spec.mode","description":"The mode."},
				{"name":"Ready","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].status"},
				{"name":"Started","type":"date","jsonPath":".status.startedAt"},
				{"name":"Tags","type":"string","jsonPath":".spec.tags","priority":1},
				{"name":"Last","type":"string","jsonPath":".spec.tags[-1]","priority":1},
				{"name":"Obj","type":"string","jsonPath":".spec.obj","priority":1},
				{"name":"Count","type":"integer","jsonPath":".status.conditions[?(@.count>1)].count","priority":1},
				{"name":"Label","type":"string","jsonPath":".metadata.labels.app\\.kubernetes\\.io/name"},
				{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}],
			"schema":{"openAPIV3Schema":{"type":"object","properties":{
				"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
				"status":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}},
			{"name":"v2","served":true,"storage":false,
			"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`)
	t.Cleanup(func() {
		_, _ = f.raw(t, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+crdName, "", "", "")
	})
	base := "/apis/" + widgetGroup + "/v1/namespaces/" + f.ns + "/" + plural
	f.eventually(t, "CRD served", func() error {
		return f.tryList(t, base)
	})

	f.post(t, base, `{"apiVersion":"`+widgetGroup+`/v1","kind":"`+kind+`","metadata":{"name":"g1","labels":{"app.kubernetes.io/name":"gad"}},
		"spec":{"replicas":3,"ratio":1.5,"enabled":true,"mode":"fast","tags":["a","b"],"obj":{"z":1,"a":"<x>"}}}`)
	f.patch(t, base+"/g1/status", `{"status":{"startedAt":"`+ago(3*time.Hour)+`","conditions":[{"type":"Synced","status":"False","count":1},{"type":"Ready","status":"True","count":3}]}}`)
	f.post(t, base, `{"apiVersion":"`+widgetGroup+`/v1","kind":"`+kind+`","metadata":{"name":"g2"},
		"spec":{"replicas":"three","ratio":2,"enabled":"yes","mode":7,"tags":[]}}`)
	f.patch(t, base+"/g2/status", `{"status":{"startedAt":"yesterday","conditions":[{"type":"Ready","status":"False","count":1.5}]}}`)
	f.post(t, base, `{"apiVersion":"`+widgetGroup+`/v1","kind":"`+kind+`","metadata":{"name":"g3"},"spec":{"ratio":0.000001}}`)

	v1Columns := "Name:string:name:0,Replicas:integer::0,Ratio:number:float:0,Enabled:boolean::0,Mode:string::0,Ready:string::0," +
		"Started:date::0,Tags:string::1,Last:string::1,Obj:string::1,Count:integer::1,Label:string::0,Age:date::0"
	f.checkTables(t, []tableCase{
		{base, v1Columns, "fe8e1669e106", []string{
			`["g1",3,1.5,true,"fast","True","3h","[\"a\",\"b\"]","b","{\"a\":\"\\u003cx\\u003e\",\"z\":1}",3,"gad","<age>"]`,
			`["g2",null,2,null,"7","False","<invalid>","[]",null,null,null,null,"<age>"]`,
			`["g3",null,0.000001,null,null,null,null,null,null,null,null,null,"<age>"]`,
		}},
		// A version without printer columns shows the name and the age.
		{strings.Replace(base, "/v1/", "/v2/", 1) + "?fieldSelector=metadata.name%3Dg1", "Name:string:name:0,Age:date::0", "bc025c20d637",
			[]string{`["g1","<age>"]`}},
		f.crdTableCase(t, crdName, kind),
	})
}

// crdTableCase is the Table of the CRD crdName itself. Up to 1.36 CRDs
// have the default columns, the name and the creation time; 1.37 gives
// them their own: the scope and the served versions, then (-o wide) the
// group, the kind, the short names and whether it is Established.
func (f *fixture) crdTableCase(t *testing.T, crdName, kind string) tableCase {
	path := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldSelector=metadata.name%3D" + crdName
	if f.minor(t) < minorNewest {
		return tableCase{path, "Name:string:name:0,Created At:date::0", "bc025c20d637", []string{`["` + crdName + `","<time>"]`}}
	}
	return tableCase{path,
		"Name:string:name:0,Scope:string::0,Versions:string::0,Created At:date::0,Group:string::1,Kind:string::1,ShortNames:string::1,Established:boolean::1",
		"a0684f249a0f", []string{`["` + crdName + `","Namespaced","v1(storage),v2","<time>","` + widgetGroup + `","` + kind + `","",true]`}}
}

// tryList lists path, for waiting until a resource is served.
func (f *fixture) tryList(t *testing.T, path string) error {
	if code, b := f.raw(t, "GET", path, "", "", ""); code != 200 {
		return fmt.Errorf("list %s = %d %s", path, code, b)
	}
	return nil
}
