// SPDX-License-Identifier: Apache-2.0

package fieldmanager

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
)

// The tests of this file check the pieces of server-side apply and
// managedFields against what structured-merge-diff does in the real
// server; the scenarios (internal/scenario) check the whole on both
// servers.

// ssaSchema is a custom resource with a list and a map of every type.
const ssaSchema = `{"type":"object","properties":{
"spec":{"type":"object","properties":{
"tags":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set"},
"items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name","zone"],
 "items":{"type":"object","properties":{"name":{"type":"string"},"zone":{"type":"string","default":"a"},"size":{"type":"integer"}}}},
"order":{"type":"array","items":{"type":"string"}},
"labels":{"type":"object","additionalProperties":{"type":"string"}},
"nested":{"type":"object","additionalProperties":{"type":"object","properties":{"x":{"type":"integer"}}}},
"selector":{"type":"object","x-kubernetes-map-type":"atomic","properties":{"a":{"type":"string"}}},
"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}`

func ssaTestSchema(t *testing.T) *schema.Schema {
	t.Helper()
	return schema.CompileCRD(ssaJSON(t, ssaSchema))
}

func ssaJSON(t *testing.T, s string) obj {
	t.Helper()
	var o obj
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	return o
}

func fieldsJSON(s *fieldSet) string {
	raw, _ := json.Marshal(s.fieldsV1())
	return string(raw)
}

func TestToFieldSet(t *testing.T) {
	s := ssaTestSchema(t)
	for _, tc := range []struct{ config, want string }{
		{`{"spec":{"tags":["x","y"]}}`, `{"f:spec":{"f:tags":{"v:\"x\"":{},"v:\"y\"":{}}}}`},
		{`{"spec":{"items":[{"name":"n","size":1}]}}`,
			`{"f:spec":{"f:items":{"k:{\"name\":\"n\",\"zone\":\"a\"}":{".":{},"f:name":{},"f:size":{}}}}}`},
		{`{"spec":{"order":["b","a"],"selector":{"a":"1"}}}`, `{"f:spec":{"f:order":{},"f:selector":{}}}`},
		{`{"spec":{"labels":{"k":"v"},"nested":{"n":{"x":1}}}}`,
			`{"f:spec":{"f:labels":{"f:k":{}},"f:nested":{"f:n":{".":{},"f:x":{}}}}}`},
		// An empty map and a null are fields of their own; an empty set
		// list is nothing.
		{`{"spec":{"labels":{},"order":null,"tags":[]}}`, `{"f:spec":{"f:labels":{},"f:order":{}}}`},
		// Unknown fields are deduced: maps granular, lists atomic.
		{`{"spec":{"free":{"a":{"b":[1,2]}}}}`, `{"f:spec":{"f:free":{"f:a":{".":{},"f:b":{}}}}}`},
		// A duplicated entry is owned once, without its fields.
		{`{"spec":{"tags":["x","x"]}}`, `{"f:spec":{"f:tags":{"v:\"x\"":{}}}}`},
	} {
		set, _ := toFieldSet(s, ssaJSON(t, tc.config))
		if got := fieldsJSON(set); got != tc.want {
			t.Errorf("toFieldSet(%s) = %s, want %s", tc.config, got, tc.want)
		}
	}
}

func TestMergeApplied(t *testing.T) {
	s := ssaTestSchema(t)
	for _, tc := range []struct{ live, config, want string }{
		// Sets: the configuration's entries in its order, the others
		// where they were.
		{`{"tags":["x","y"]}`, `{"tags":["z"]}`, `{"tags":["x","y","z"]}`},
		{`{"tags":["x","z"]}`, `{"tags":["z","x"]}`, `{"tags":["z","x"]}`},
		{`{"tags":["a","x","b","z","c"]}`, `{"tags":["z","n","x"]}`, `{"tags":["a","b","z","c","n","x"]}`},
		// Map lists merge their entries by key (defaults complete keys).
		{`{"items":[{"name":"n","zone":"a","size":1}]}`, `{"items":[{"name":"n","size":2},{"name":"m"}]}`,
			`{"items":[{"name":"n","zone":"a","size":2},{"name":"m"}]}`},
		// Atomic lists and maps are replaced; granular maps merged.
		{`{"order":["a","b"],"selector":{"a":"1"},"labels":{"k":"v"}}`, `{"order":["c"],"selector":{},"labels":{"j":"w"}}`,
			`{"order":["c"],"selector":{},"labels":{"k":"v","j":"w"}}`},
	} {
		got := mergeApplied(s.Field("spec"), ssaJSON(t, tc.live), ssaJSON(t, tc.config))
		if g, _ := json.Marshal(got); !jsonpatch.Equal(got, any(ssaJSON(t, tc.want))) {
			t.Errorf("merge(%s, %s) = %s, want %s", tc.live, tc.config, g, tc.want)
		}
	}
}

func TestCompareObjects(t *testing.T) {
	s := ssaTestSchema(t)
	for _, tc := range []struct{ old, new, added, modified, removed string }{
		{`{"spec":{"tags":["x"]}}`, `{"spec":{"tags":["x","y"],"labels":{"k":"v"}}}`,
			`{"f:spec":{"f:labels":{".":{},"f:k":{}},"f:tags":{"v:\"y\"":{}}}}`, `{}`, `{}`},
		{`{"spec":{"items":[{"name":"n","size":1}],"order":["a"]}}`, `{"spec":{"items":[{"name":"n","size":2}]}}`,
			`{}`, `{"f:spec":{"f:items":{"k:{\"name\":\"n\",\"zone\":\"a\"}":{"f:size":{}}}}}`, `{"f:spec":{"f:order":{}}}`},
		{`{}`, `{"spec":{"nested":{"n":{"x":1}}}}`,
			`{"f:spec":{".":{},"f:nested":{".":{},"f:n":{".":{},"f:x":{}}}}}`, `{}`, `{}`},
	} {
		c, err := compareObjects(s, ssaJSON(t, tc.old), ssaJSON(t, tc.new), false, false)
		if err != nil {
			t.Fatal(err)
		}
		if a, m, r := fieldsJSON(c.added), fieldsJSON(c.modified), fieldsJSON(c.removed); a != tc.added || m != tc.modified || r != tc.removed {
			t.Errorf("compare(%s, %s) = added %s modified %s removed %s, want %s %s %s", tc.old, tc.new, a, m, r,
				tc.added, tc.modified, tc.removed)
		}
	}
}

// TestCompareTypedZeroFields checks that a built-in kind's structs that
// are not pointers count as present, as in the real server's typed
// objects: a field added in them does not add the struct.
func TestCompareTypedZeroFields(t *testing.T) {
	deploy := schema.Builtin("apps", "v1", "Deployment")
	old := ssaJSON(t, `{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"i"}]}}}}`)
	next := ssaJSON(t, `{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":"1"}}}],
"securityContext":{"runAsUser":1}}}}}`)
	c, err := compareObjects(deploy, old, next, true, true)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{"f:resources":{"f:limits":{".":{},"f:cpu":{}}}}},` +
		`"f:securityContext":{".":{},"f:runAsUser":{}}}}}}`
	if got := fieldsJSON(c.added); got != want {
		t.Errorf("typed compare added %s, want %s", got, want)
	}
	// A create starts from the zero object: the spec and template are
	// there, the containers list too (as null); a new container has its
	// resources.
	c, _ = compareObjects(deploy, obj{}, old, true, true)
	want = `{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{},"f:resources":{}}}}}}}`
	if got := fieldsJSON(c.added); got != want {
		t.Errorf("typed create added %s, want %s", got, want)
	}
}

func TestFieldsV1(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{`{"f:a":{},"f:b":{".":{},"f:c":{}}}`, `{"f:a":{},"f:b":{".":{},"f:c":{}}}`, ""},
		{`{"f:a":{"x:unknown":{}},"k:{\"b\":1, \"a\":\"x\"}":{}}`, `{"f:a":{},"k:{\"a\":\"x\",\"b\":1}":{}}`, ""},
		{`{"f:a":null}`, `{"f:a":{}}`, ""},
		{`{"fx":{}}`, "", "missing colon"},
		{`{"f:a":1}`, "", "expected an object"},
		{`{"k:nope":{}}`, "", "invalid character"},
	} {
		s, err := parseFieldsV1(ssaJSON(t, `{"v":`+tc.in+`}`)["v"])
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseFieldsV1(%s) = %v, want an error with %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("parseFieldsV1(%s): %v", tc.in, err)
		case fieldsJSON(s) != tc.want:
			t.Errorf("parseFieldsV1(%s) encodes as %s, want %s", tc.in, fieldsJSON(s), tc.want)
		}
	}
}

func TestPathsAndNames(t *testing.T) {
	s := newFieldSet()
	s.insert("f:spec", "f:labels", "f:a")
	s.insert("f:spec", "f:order")
	s.insert("f:spec", "f:items", `k:{"name":"n","port":80}`, "f:size")
	s.insert("f:spec", "f:items", `k:{"name":"n","port":443}`)
	s.insert("f:spec", "f:tags", `v:"x"`)
	var got []string
	for _, p := range s.paths() {
		got = append(got, PathString(p))
	}
	// Members of a node before what is under its children, each in
	// element order (keys by value: 80 before 443).
	want := []string{".spec.order", `.spec.items[name="n",port=443]`, `.spec.items[name="n",port=80].size`,
		".spec.labels.a", `.spec.tags[="x"]`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("paths = %q, want %q", got, want)
	}
}

func TestDecodeManagedFields(t *testing.T) {
	entry := func(extra string) string {
		return `[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:a":{}}` + extra + `}]`
	}
	for _, tc := range []struct {
		in    string
		err   string
		reset bool
	}{
		{entry(""), "", false},
		{`[]`, "", true},
		{`[{}]`, "", true},
		{`[{"manager":"","time":null}]`, "", true},
		{`[{"fieldsV1":{}}]`, "operation must be", false},
		{`[{"manager":"m","operation":"Delete","apiVersion":"v1","fieldsType":"FieldsV1"}]`, "operation must be", false},
		{`[{"manager":"m","operation":"Apply","fieldsType":"FieldsV1"}]`, "apiVersion must not be empty", false},
		{`[{"manager":"m","operation":"Apply","apiVersion":"v1"}]`, "missing fieldsType", false},
		{`[{"manager":"m","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV2"}]`, "invalid fieldsType", false},
		{entry(`,"time":"yesterday"`), "time", false},
		{`[7]`, "not an object", false},
	} {
		v := ssaJSON(t, `{"v":`+tc.in+`}`)["v"]
		if got := isResetManagedFields(v); got != tc.reset {
			t.Errorf("isResetManagedFields(%s) = %v, want %v", tc.in, got, tc.reset)
		}
		if tc.reset {
			continue
		}
		_, err := decodeManagedFields(v)
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("decodeManagedFields(%s) = %v, want error %q", tc.in, err, tc.err)
		}
	}
}

func TestCapUpdateManagers(t *testing.T) {
	var entries []*Entry
	for i := range 12 {
		f := newFieldSet()
		f.insert("f:data", "f:"+string(rune('a'+i)))
		entries = append(entries, &Entry{Manager: "m" + string(rune('a'+i)), Operation: "Update", APIVersion: "v1",
			Time: "2026-01-01T00:00:" + string(rune('0'+i/10)) + string(rune('0'+i%10)) + "Z", Fields: f})
	}
	entries = append(entries, &Entry{Manager: "applier", Operation: "Apply", APIVersion: "v1", Fields: newFieldSet()})
	entries[len(entries)-1].Fields.insert("f:x")
	entries = capUpdateManagers(entries)
	var names []string
	for _, e := range entries {
		names = append(names, e.Manager)
	}
	// The three oldest go into one entry with the third's time.
	if got := strings.Join(names, " "); got != "ancient-changes md me mf mg mh mi mj mk ml applier" {
		t.Fatalf("managers after the cap = %s", got)
	}
	if a := entries[0]; fieldsJSON(a.Fields) != `{"f:data":{"f:a":{},"f:b":{},"f:c":{}}}` || a.Time != "2026-01-01T00:00:02Z" {
		t.Errorf("ancient-changes = %s at %s", fieldsJSON(a.Fields), a.Time)
	}
}
