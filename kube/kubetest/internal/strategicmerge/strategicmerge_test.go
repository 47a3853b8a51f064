// SPDX-License-Identifier: Apache-2.0

package strategicmerge

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/testjson"
)

// The expected results of these tables are kube-apiserver 1.36.3's
// answers to the same patches (captured with the harness; items the real
// server defaults, such as a container's terminationMessagePath, left
// out of both sides).

// podSpecPatch wraps a pod spec (or a patch of one) in a Deployment.
func podSpecPatch(spec string) string {
	return `{"spec":{"template":{"spec":` + spec + `}}}`
}

const smpContainers = `{"containers":[
	{"name":"c1","image":"nginx","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"ports":[{"containerPort":80,"protocol":"TCP"}]},
	{"name":"c2","image":"busybox"},
	{"name":"c3","image":"x3"}],
	"volumes":[{"name":"v1","emptyDir":{}},{"name":"v2","configMap":{"name":"cm"}}],
	"tolerations":[{"key":"a","operator":"Exists"}]}`

// TestStrategicMergeDeployment: lists merged by merge key, their order,
// and the list directives, in a Deployment's pod template.
func TestStrategicMergeDeployment(t *testing.T) {
	s := schema.Builtin("apps", "v1", "Deployment")
	for _, tc := range []struct {
		name, patch string
		// field is the pod spec field compared, want its value (JSON;
		// "null" for absent).
		field, want string
	}{
		{"a new container comes first", `{"containers":[{"name":"c9","image":"x"}]}`,
			"containers", `["c9","c1","c2","c3"]`},
		{"patch items in the patch's order, interleaved with the object's", `{"containers":[{"name":"c9","image":"x"},{"name":"c2","image":"y"}]}`,
			"containers", `["c9","c1","c2","c3"]`},
		{"a merged container keeps its env and ports", `{"containers":[{"name":"c1","image":"nginx:2"}]}`,
			"containers.0", `{"name":"c1","image":"nginx:2","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"ports":[{"containerPort":80,"protocol":"TCP"}]}`},
		{"env merged by name", `{"containers":[{"name":"c1","env":[{"name":"C","value":"3"},{"name":"A","value":"9"}]}]}`,
			"containers.0.env", `[{"name":"C","value":"3"},{"name":"A","value":"9"},{"name":"B","value":"2"}]`},
		{"null deletes a field of an item", `{"containers":[{"name":"c1","env":[{"name":"A","value":null}]}]}`,
			"containers.0.env", `[{"name":"A"},{"name":"B","value":"2"}]`},
		{"nulls of a new item are dropped", `{"containers":[{"name":"c1","env":[{"name":"Z","value":null,"valueFrom":null}]}]}`,
			"containers.0.env", `[{"name":"Z"},{"name":"A","value":"1"},{"name":"B","value":"2"}]`},
		{"ports merged by containerPort", `{"containers":[{"name":"c1","ports":[{"containerPort":81},{"containerPort":80,"name":"http"}]}]}`,
			"containers.0.ports", `[{"containerPort":81},{"containerPort":80,"name":"http","protocol":"TCP"}]`},
		{"$patch delete removes an item", `{"containers":[{"name":"c1","$patch":"delete"}]}`,
			"containers", `["c2","c3"]`},
		{"a list of directives only is no list", `{"containers":[{"name":"c2","ports":[{"containerPort":80,"$patch":"delete"}]}]}`,
			"containers.1.ports", `null`},
		{"deleting the last port leaves none", `{"containers":[{"name":"c1","ports":[{"containerPort":80,"$patch":"delete"}]}]}`,
			"containers.0.ports", `null`},
		{"$patch replace makes the rest the list", `{"containers":[{"name":"c9","image":"z"},{"$patch":"replace"}]}`,
			"containers", `["c9"]`},
		{"a replace item is not kept", `{"containers":[{"name":"c1","image":"x","$patch":"replace"}]}`,
			"containers", `null`},
		{"$setElementOrder orders the list", `{"$setElementOrder/containers":[{"name":"c3"},{"name":"c2"},{"name":"c1"}],"containers":[{"name":"c1","image":"n2"}]}`,
			"containers", `["c3","c2","c1"]`},
		{"$setElementOrder alone reorders", `{"containers":[{"name":"c1","$setElementOrder/env":[{"name":"B"},{"name":"A"}]}]}`,
			"containers.0.env", `[{"name":"B","value":"2"},{"name":"A","value":"1"}]`},
		{"$setElementOrder puts a new item where it says", `{"$setElementOrder/containers":[{"name":"c1"},{"name":"c9"},{"name":"c2"},{"name":"c3"}],"containers":[{"name":"c9","image":"x"}]}`,
			"containers", `["c1","c9","c2","c3"]`},
		{"kubectl apply removing a container", `{"$setElementOrder/containers":[{"name":"c1"},{"name":"c3"}],"containers":[{"$patch":"delete","name":"c2"}]}`,
			"containers", `["c1","c3"]`},
		{"kubectl apply renaming a container", `{"$setElementOrder/containers":[{"name":"c1"},{"name":"n2"},{"name":"c3"}],"containers":[{"name":"n2","image":"i"},{"name":"c2","$patch":"delete"}]}`,
			"containers", `["c1","n2","c3"]`},
		{"the order list is the object's as deletion and addition left it", `{"$setElementOrder/containers":[{"name":"c4"},{"name":"c3"}],"containers":[{"name":"c1","$patch":"delete"},{"name":"c4","image":"i4"}]}`,
			"containers", `["c2","c4","c3"]`},
		{"a delete first and an addition without order", `{"containers":[{"name":"c1","$patch":"delete"},{"name":"c4","image":"i4"}]}`,
			"containers", `["c4","c2","c3"]`},
		{"an empty $setElementOrder", `{"$setElementOrder/containers":[],"containers":[{"name":"c4","image":"i4"},{"name":"c2","image":"z"}]}`,
			"containers", `["c1","c2","c3","c4"]`},
		{"$setElementOrder naming items the list lacks", `{"$setElementOrder/containers":[{"name":"zz"},{"name":"c3"},{"name":"c2"},{"name":"c1"}]}`,
			"containers", `["c3","c2","c1"]`},
		{"$setElementOrder of a list the object lacks", `{"$setElementOrder/initContainers":[{"name":"i1"}],"initContainers":[{"name":"i1","image":"x"},{"name":"i0","$patch":"delete"}]}`,
			"initContainers", `[{"name":"i1","image":"x"}]`},
		{"$retainKeys of a volume", `{"volumes":[{"name":"v1","$retainKeys":["name","hostPath"],"hostPath":{"path":"/x"}}]}`,
			"volumes", `[{"name":"v1","hostPath":{"path":"/x"}},{"name":"v2","configMap":{"name":"cm"}}]`},
		{"a new item keeps its directives (unknown fields)", `{"volumes":[{"name":"v3","$retainKeys":["name","emptyDir"],"emptyDir":{}}]}`,
			"volumes.0", `{"name":"v3","$retainKeys":["name","emptyDir"],"emptyDir":{}}`},
		{"an atomic list is replaced, directives and all", `{"tolerations":[{"key":"k","$patch":"delete"}]}`,
			"tolerations", `[{"key":"k","$patch":"delete"}]`},
		{"an atomic list the object lacks loses its directive items", `{"initContainers":[{"name":"i1","image":"x"},{"name":"i0","$patch":"delete"}]}`,
			"initContainers", `[{"name":"i1","image":"x"}]`},
		{"null removes a list", `{"tolerations":null}`, "tolerations", `null`},
		{"$deleteFromPrimitiveList on a list of objects merges", `{"$deleteFromPrimitiveList/containers":[{"name":"c1"}]}`,
			"containers", `["c1","c2","c3"]`},
		{"$deleteFromPrimitiveList of a missing list", `{"$deleteFromPrimitiveList/initContainers":[{"name":"c1"}]}`,
			"initContainers", `null`},
		{"a list of objects for a map is a value of another type", `{"containers":{"name":"x"}}`,
			"containers", `{"name":"x"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := Merge(s, decodeJSONObject(t, podSpecPatch(smpContainers)), decodeJSONObject(t, podSpecPatch(tc.patch)))
			if err != nil {
				t.Fatalf("patch %s: %d %s", tc.patch, err.Code, err.Msg)
			}
			got := testjson.At(out, "spec.template.spec."+tc.field)
			if l, ok := got.([]any); ok && tc.want[0] == '[' && tc.want[1] == '"' {
				got = testjson.ItemNames(l)
			}
			if want := testjson.Decode(t, tc.want); !reflect.DeepEqual(got, want) {
				gotJSON, _ := json.Marshal(got)
				t.Errorf("patch %s: %s = %s, want %s", tc.patch, tc.field, gotJSON, tc.want)
			}
		})
	}
}

// TestStrategicMergeObjects: maps, scalar sets ($deleteFromPrimitiveList,
// $setElementOrder of scalars) and $retainKeys, on a ConfigMap.
func TestStrategicMergeObjects(t *testing.T) {
	s := schema.Builtin("", "v1", "ConfigMap")
	const base = `{"metadata":{"name":"x","labels":{"a":"1","b":"2"},"finalizers":["f/a","f/b","f/c"],
		"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o1","uid":"u1"}]},"data":{"a":"1","b":"2"}}`
	for _, tc := range []struct {
		name, patch, field, want string
	}{
		{"null deletes", `{"data":{"a":null},"metadata":{"labels":null}}`, "", `{"metadata":{"name":"x","finalizers":["f/a","f/b","f/c"],"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o1","uid":"u1"}]},"data":{"b":"2"}}`},
		{"$patch replace of a map", `{"data":{"$patch":"replace","c":"3"}}`, "data", `{"c":"3"}`},
		{"$patch delete of a map", `{"data":{"$patch":"delete"}}`, "data", `null`},
		{"$patch delete with other keys", `{"data":{"$patch":"delete","x":"y"}}`, "data", `null`},
		{"$patch of a map the object lacks", `{"binaryData":{"$patch":"replace","x":"eQ=="}}`, "binaryData", `null`},
		{"$patch replace of the whole object", `{"$patch":"replace","data":{"z":"1"}}`, "", `{"data":{"z":"1"}}`},
		{"$patch delete of the whole object", `{"$patch":"delete"}`, "", `{}`},
		{"a set of scalars: union, patch items first", `{"metadata":{"finalizers":["f/d","f/b","f/d","f/e"]}}`, "metadata.finalizers", `["f/d","f/a","f/b","f/e","f/c"]`},
		{"$deleteFromPrimitiveList", `{"metadata":{"$deleteFromPrimitiveList/finalizers":["f/a","f/x"]}}`, "metadata.finalizers", `["f/b","f/c"]`},
		{"$deleteFromPrimitiveList null removes the list", `{"metadata":{"$deleteFromPrimitiveList/finalizers":null}}`, "metadata.finalizers", `null`},
		{"$deleteFromPrimitiveList of another type does nothing", `{"metadata":{"$deleteFromPrimitiveList/finalizers":"f/a"}}`, "metadata.finalizers", `["f/a","f/b","f/c"]`},
		{"$setElementOrder of scalars", `{"metadata":{"$setElementOrder/finalizers":["f/c","f/a","f/b"]}}`, "metadata.finalizers", `["f/c","f/a","f/b"]`},
		{"$setElementOrder of scalars with an addition", `{"metadata":{"$setElementOrder/finalizers":["f/b","f/d","f/a"],"finalizers":["f/d"]}}`, "metadata.finalizers", `["f/b","f/d","f/a","f/c"]`},
		{"$setElementOrder then $deleteFromPrimitiveList", `{"metadata":{"$setElementOrder/finalizers":["f/c","f/a"],"$deleteFromPrimitiveList/finalizers":["f/b"]}}`, "metadata.finalizers", `["f/c","f/a"]`},
		{"ownerReferences merged by uid", `{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o2","uid":"u2"}]}}`, "metadata.ownerReferences", `[{"apiVersion":"v1","kind":"ConfigMap","name":"o2","uid":"u2"},{"apiVersion":"v1","kind":"ConfigMap","name":"o1","uid":"u1"}]`},
		{"nulls in a replaced map are its values' zero", `{"metadata":{"labels":{"$patch":"replace","a":null,"c":"3"}}}`, "metadata.labels", `{"a":"","c":"3"}`},
		{"a list left empty is omitted", `{"metadata":{"$deleteFromPrimitiveList/finalizers":["f/a","f/b","f/c"]}}`, "metadata.finalizers", `null`},
		{"$retainKeys of a map", `{"metadata":{"labels":{"$retainKeys":["b","c"],"c":"3"}}}`, "metadata.labels", `{"b":"2","c":"3"}`},
		{"$retainKeys skips nulls", `{"data":{"$retainKeys":["b"],"a":null}}`, "data", `{"b":"2"}`},
		{"$retainKeys of other values than names", `{"data":{"$retainKeys":[1,"a"]}}`, "data", `{"a":"1"}`},
		{"$retainKeys beside list directives", `{"metadata":{"$retainKeys":["name","finalizers"],"$setElementOrder/finalizers":["f/c","f/b","f/a"]}}`, "metadata", `{"name":"x","finalizers":["f/c","f/b","f/a"]}`},
		{"an unknown $key is kept (an unknown field)", `{"data":{"$foo":"x"}}`, "data", `{"$foo":"x","a":"1","b":"2"}`},
		{"$deleteFromPrimitiveList of a scalar sets it", `{"metadata":{"$deleteFromPrimitiveList/name":"y"}}`, "metadata.name", `"y"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := Merge(s, decodeJSONObject(t, base), decodeJSONObject(t, tc.patch))
			if err != nil {
				t.Fatalf("patch %s: %d %s", tc.patch, err.Code, err.Msg)
			}
			var got any = out
			if tc.field != "" {
				got = testjson.At(out, tc.field)
			}
			if want := testjson.Decode(t, tc.want); !reflect.DeepEqual(got, want) {
				gotJSON, _ := json.Marshal(got)
				t.Errorf("patch %s: %s = %s, want %s", tc.patch, tc.field, gotJSON, tc.want)
			}
		})
	}
}

// TestStrategicMergeErrors: malformed directives get the real server's
// codes and messages.
func TestStrategicMergeErrors(t *testing.T) {
	dep := schema.Builtin("apps", "v1", "Deployment")
	cm := schema.Builtin("", "v1", "ConfigMap")
	const cmBase = `{"metadata":{"name":"x","finalizers":["f/a"]},"data":{"a":"1"}}`
	for _, tc := range []struct {
		name  string
		s     *schema.Schema
		cur   string
		patch string
		code  int
		msg   string
	}{
		{"unknown $patch of a map", cm, cmBase, `{"data":{"$patch":"foo"}}`, 500, "unknown patch type: foo in map: map[$patch:foo]"},
		{"a number as $patch", cm, cmBase, `{"data":{"$patch":1}}`, 500, "unknown patch type: %!s(int64=1) in map: map[$patch:1]"},
		{"null as $patch", cm, cmBase, `{"data":{"$patch":null}}`, 500, "unknown patch type: %!s(<nil>) in map: map[$patch:<nil>]"},
		{"$patch merge of a map", cm, cmBase, `{"data":{"$patch":"merge","c":"3"}}`, 500, "unknown patch type: merge in map: map[$patch:merge c:3]"},
		{"$retainKeys not naming a patched key", cm, cmBase, `{"data":{"$retainKeys":["b"],"a":"2"}}`, 400, "invalid patch format of retainKeys"},
		{"$retainKeys not a list", cm, cmBase, `{"data":{"$retainKeys":"a"}}`, 400, "invalid patch format of retainKeys"},
		{"$retainKeys null", cm, cmBase, `{"data":{"$retainKeys":null}}`, 400, "invalid patch format of retainKeys"},
		{"a bad $deleteFromPrimitiveList key", cm, cmBase, `{"metadata":{"$deleteFromPrimitiveListfinalizers":["f/a"]}}`, 400, "invalid patch format of primitive list"},
		{"a bad $setElementOrder key", dep, podSpecPatch(smpContainers), podSpecPatch(`{"$setElementOrderX/containers":[]}`), 400, "invalid patch format of setElementOrder list"},
		{"$setElementOrder not a list", dep, podSpecPatch(smpContainers), podSpecPatch(`{"$setElementOrder/containers":"x"}`), 500, "expected a []interface {}, but received a string"},
		{"$setElementOrder null", dep, podSpecPatch(smpContainers), podSpecPatch(`{"$setElementOrder/containers":null}`), 500, "expected a []interface {}, but received a %!s(<nil>)"},
		{"$setElementOrder of an object", dep, podSpecPatch(smpContainers), `{"spec":{"$setElementOrder/template":[{"key":"a"}]}}`, 500, "expected a []interface {}, but received a map[string]interface {}"},
		{"$setElementOrder of an unknown field", dep, podSpecPatch(smpContainers), podSpecPatch(`{"$setElementOrder/foos":[{"name":"a"}]}`), 500, `unable to find api field in struct PodSpec for the json field "foos"`},
		{"$setElementOrder contradicting its list", dep, podSpecPatch(smpContainers), podSpecPatch(`{"$setElementOrder/containers":[{"name":"c2"}],"containers":[{"name":"c1","image":"n2"}]}`), 500,
			"The order in patch list:\n[map[image:n2 name:c1]]\n doesn't match $setElementOrder list:\n[map[name:c2]]\n"},
		{"$setElementOrder item without merge key", dep, podSpecPatch(smpContainers), podSpecPatch(`{"$setElementOrder/containers":[{"image":"zz"}],"containers":[{"name":"c1","image":"q"}]}`), 500,
			"map: map[image:zz] does not contain declared merge key: name"},
		{"$setElementOrder with a null item", dep, podSpecPatch(smpContainers), podSpecPatch(`{"$setElementOrder/containers":[null]}`), 500, "value for key 0 is not a map"},
		{"$setElementOrder of objects without merge key", dep, podSpecPatch(smpContainers), podSpecPatch(`{"$setElementOrder/tolerations":[{"key":"a"}]}`), 500,
			"runtime error: hash of unhashable type map[string]interface {}"},
		{"an item without merge key", dep, podSpecPatch(smpContainers), podSpecPatch(`{"containers":[{"image":"z"}]}`), 500, "map: map[image:z] does not contain declared merge key: name"},
		// Not captured: the item whose null key the first patch item
		// removed is no longer found, so the second is added (the real
		// server's scan, which the index follows, does the same).
		{"a null merge key merged away", dep, podSpecPatch(`{"containers":[{"name":null,"image":"a"}]}`),
			podSpecPatch(`{"containers":[{"name":null},{"name":null,"image":"b"}]}`), 500, "map: map[image:a] does not contain declared merge key: name"},
		{"a delete item without merge key", dep, podSpecPatch(smpContainers), podSpecPatch(`{"containers":[{"$patch":"delete"}]}`), 500, "map: map[$patch:delete] does not contain declared merge key: name"},
		{"$patch merge of a list", dep, podSpecPatch(smpContainers), podSpecPatch(`{"containers":[{"name":"c1","$patch":"merge"}]}`), 500, "merging lists cannot yet be specified in the patch"},
		{"unknown $patch of a list item", dep, podSpecPatch(smpContainers), podSpecPatch(`{"containers":[{"name":"c1","$patch":"zap"}]}`), 500, "unknown patch type: zap in map: map[$patch:zap name:c1]"},
		{"$deleteFromPrimitiveList of objects without merge key", dep, podSpecPatch(smpContainers), podSpecPatch(`{"$deleteFromPrimitiveList/tolerations":[{"key":"a","operator":"Exists"}]}`), 500,
			"cannot merge lists without merge key for struct"},
		{"a scalar in a list of objects", dep, podSpecPatch(`{"containers":[{"name":"c1"}]}`), podSpecPatch(`{"containers":["x"]}`), 500,
			"list element types are not identical: [[map[name:c1]] [x]]"},
		{"items of two types", cm, cmBase, `{"metadata":{"finalizers":[1]}}`, 500, "list element types are not identical: [[f/a] [1]]"},
		{"a list in a list of scalars", cm, cmBase, `{"metadata":{"finalizers":[["a"]]}}`, 500, "list element types are not identical: [[f/a] [[a]]]"},
		{"a list of lists", cm, `{"metadata":{"name":"x"}}`, `{"metadata":{"$setElementOrder/finalizers":[],"finalizers":[["a"]]}}`, 500,
			"runtime error: hash of unhashable type []interface {}"},
		{"an empty list ordered", cm, `{"metadata":{"name":"x"}}`, `{"metadata":{"$setElementOrder/finalizers":[],"finalizers":[]}}`, 500,
			"no elements in any of the given slices"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Merge(tc.s, decodeJSONObject(t, tc.cur), decodeJSONObject(t, tc.patch))
			if err == nil || err.Code != tc.code || err.Msg != tc.msg {
				t.Errorf("patch %s = %+v, want %d %q", tc.patch, err, tc.code, tc.msg)
			}
		})
	}
}

// TestStrategicMergeQuotesWhatIsLeft: the patch quoted in errors is the
// patch as the merge left it, as the real server quotes it.
func TestStrategicMergeQuotesWhatIsLeft(t *testing.T) {
	cur := decodeJSONObject(t, `{"spec":{"strategy":{"type":"RollingUpdate"},"template":{"metadata":{"labels":{"x":"1"}},"spec":`+smpContainers+`}}}`)
	patch := decodeJSONObject(t, `{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"},"template":{"metadata":{"labels":{"x":null}},"spec":{
		"$setElementOrder/containers":[{"name":"c1"},{"name":"c2"}],"containers":[{"name":"c1","bogus":1}],
		"volumes":[{"name":"v1","emptyDir":{"$patch":"replace","medium":"Memory"}}],
		"initContainers":[{"name":"i","image":"x","env":[{"name":"a","value":null}]}]}}}}`)
	_, quoted, err := Merge(schema.Builtin("apps", "v1", "Deployment"), cur, patch)
	if err != nil {
		t.Fatal(err.Msg)
	}
	const want = "map[spec:map[strategy:map[type:Recreate] template:map[metadata:map[labels:map[x:<nil>]] spec:map[initContainers:[map[env:[map[name:a]] image:x name:i]] volumes:[map[emptyDir:map[medium:Memory] name:v1]]]]]]"
	if quoted != want {
		t.Errorf("quoted patch\n  %s\nwant\n  %s", quoted, want)
	}
}
