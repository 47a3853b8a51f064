// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// testCRDInvalid creates Sprockets that break their schema, each a valid
// one with one change made on its JSON, and checks the causes of the
// refusal: the field paths and messages recorded from kube-apiserver 1.36
// and 1.37, and 1.33's where it words them otherwise (crdWording).
func testCRDInvalid(t *testing.T, f *fixture, gvk kube.GroupVersionKind) {
	w := crdWording{f.minor(t)}
	for _, tc := range []struct {
		name   string
		change func(u *kube.Unstructured)
		want   []string
	}{
		{"size below minimum", func(u *kube.Unstructured) { u.SetField(0, "spec", "size") }, []string{
			"spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1",
		}},
		{"size above maximum", func(u *kube.Unstructured) { u.SetField(11, "spec", "size") }, []string{
			"spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10",
		}},
		{"size not an integer", func(u *kube.Unstructured) { u.SetField(1.5, "spec", "size") }, w.notInt32("spec.size")},
		{"size a string", func(u *kube.Unstructured) { u.SetField("3", "spec", "size") }, []string{
			"spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\"",
		}},
		{"name missing", func(u *kube.Unstructured) { kube.RemoveNestedField(u.Content, "spec", "name") }, []string{
			"spec.name: Required value",
		}},
		{"name breaks the pattern", func(u *kube.Unstructured) { u.SetField("Bad_Name", "spec", "name") }, []string{
			"spec.name: Invalid value: \"Bad_Name\": spec.name in body should match '^[a-z]([-a-z0-9]*[a-z0-9])?$'",
		}},
		{"name too long", func(u *kube.Unstructured) { u.SetField("a-very-long-sprocket-name", "spec", "name") }, []string{
			"spec.name: Too long: may not be more than 20 bytes",
		}},
		{"color not in the enum", func(u *kube.Unstructured) { u.SetField("purple", "spec", "color") }, []string{
			"spec.color: Unsupported value: \"purple\": supported values: \"red\", \"green\", \"blue\"",
		}},
		{"port neither int nor string", func(u *kube.Unstructured) { u.SetField(true, "spec", "port") }, []string{
			"<nil>: Invalid value: \"\": \"spec.port\" must validate at least one schema (anyOf)",
			"spec.port: Invalid value: \"boolean\": spec.port in body must be of type integer,string: \"boolean\"",
			"spec.port: Invalid value: \"boolean\": spec.port in body must be of type integer: \"boolean\"",
		}},
		{"ratio above maximum", func(u *kube.Unstructured) { u.SetField(2.5, "spec", "ratio") }, []string{
			"spec.ratio: Invalid value: 2.5: spec.ratio in body should be less than or equal to 1",
		}},
		{"too many tags", func(u *kube.Unstructured) { u.SetField([]any{"a", "b", "c", "d"}, "spec", "tags") }, []string{
			"spec.tags: Too many: 4: must have at most 3 items",
		}},
		{"tag too long", func(u *kube.Unstructured) { u.SetField([]any{"much-too-long"}, "spec", "tags") }, []string{
			"spec.tags[0]: Too long: may not be more than 8 bytes",
		}},
		{"tags repeated in a set", func(u *kube.Unstructured) { u.SetField([]any{"a", "a"}, "spec", "tags") }, []string{
			"spec.tags[1]: Duplicate value: \"a\"",
		}},
		{"negative limit", func(u *kube.Unstructured) { u.SetField(-1, "spec", "limits", "cpu") }, []string{
			"spec.limits.cpu: Invalid value: -1: spec.limits.cpu in body should be greater than or equal to 0",
		}},
		{"part key repeated", func(u *kube.Unstructured) {
			u.SetField([]any{map[string]any{"name": "gear"}, map[string]any{"name": "gear", "count": 1}}, "spec", "parts")
		}, []string{
			w.duplicate("spec.parts[1]", `map[string]interface {}{"name":"gear"}`, `{"name":"gear"}`),
		}},
		{"part without its key", func(u *kube.Unstructured) { u.SetField([]any{map[string]any{"count": 1}}, "spec", "parts") }, []string{
			"spec.parts[0].name: Required value",
		}},
		{"nested required field missing", func(u *kube.Unstructured) {
			u.SetField(map[string]any{"team": "t", "contact": map[string]any{"phone": "1"}}, "spec", "owner")
		}, []string{
			"spec.owner.contact.email: Required value",
		}},
		{"payload not base64", func(u *kube.Unstructured) { u.SetField("not base64!", "spec", "payload") }, []string{
			"spec.payload: Invalid value: \"not base64!\": spec.payload in body must be of type byte: \"not base64!\"",
		}},
		{"deadline not a date-time", func(u *kube.Unstructured) { u.SetField("tomorrow", "spec", "deadline") }, []string{
			"spec.deadline: Invalid value: \"tomorrow\": spec.deadline in body must be of type date-time: \"tomorrow\"",
		}},
		{"template labels not strings", func(u *kube.Unstructured) { u.SetField(map[string]any{"n": 1}, "spec", "template", "labels") }, []string{
			"spec.template.labels.n: Invalid value: \"integer\": spec.template.labels.n in body must be of type string: \"integer\"",
		}},
		{"embedded object without kind", func(u *kube.Unstructured) {
			kube.RemoveNestedField(u.Content, "spec", "config", "kind")
			kube.RemoveNestedField(u.Content, "spec", "config", "apiVersion")
		}, []string{
			w.embeddedRequired("spec.config.apiVersion"),
			w.embeddedRequired("spec.config.kind"),
		}},
		{"embedded object with bad metadata", func(u *kube.Unstructured) {
			u.SetField("a/b", "spec", "object", "metadata", "name")
			u.SetField(map[string]any{"bad key": "v"}, "spec", "object", "metadata", "labels")
			u.SetField("Bad_Kind", "spec", "object", "kind")
		}, []string{
			`spec.object.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
			`spec.object.metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			`spec.object.metadata.name: Invalid value: "a/b": may not contain '/'`,
		}},
		{"spec not an object", func(u *kube.Unstructured) { u.SetField("flat", "spec") }, []string{
			"spec: Invalid value: \"string\": spec in body must be of type object: \"string\"",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := asUnstructured(t, fullSprocket(f.ns, "bad-"+randomSuffix(), gvk))
			tc.change(u)
			checkCauses(t, tc.name, f.c.Create(f.ctx, u), tc.want)
		})
	}
}

// asUnstructured re-decodes obj as an Unstructured, so that tests can
// write what its Go type cannot hold.
func asUnstructured(t *testing.T, obj kube.Object) *kube.Unstructured {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &kube.Unstructured{}
	if err := json.Unmarshal(b, u); err != nil {
		t.Fatal(err)
	}
	return u
}
