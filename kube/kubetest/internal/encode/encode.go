// SPDX-License-Identifier: Apache-2.0

// Package encode writes decoded objects back to JSON as kube-apiserver
// writes them: kind and apiVersion first, then metadata with its fields
// in ObjectMeta's order (empty ones and unknown ones dropped, as the real
// server drops them) and managedFields entries in ManagedFieldsEntry's
// order, then every other field by name; and Status errors in the real
// server's field order ([Status]).
//
// Guarantees:
//   - The same object always encodes to the same bytes.
//   - Nothing given is modified or kept.
//   - Values come from encoding/json decoding; a value it cannot encode
//     (a channel, a func) panics.
package encode

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

type obj = map[string]any

// metaRank orders metadata fields as ObjectMeta declares them; unknown
// fields are dropped on write, as the real server drops them.
func metaRank(k string) int {
	switch k {
	case "name":
		return 1
	case "generateName":
		return 2
	case "namespace":
		return 3
	case "selfLink":
		return 4
	case "uid":
		return 5
	case "resourceVersion":
		return 6
	case "generation":
		return 7
	case "creationTimestamp":
		return 8
	case "deletionTimestamp":
		return 9
	case "deletionGracePeriodSeconds":
		return 10
	case "labels":
		return 11
	case "annotations":
		return 12
	case "ownerReferences":
		return 13
	case "finalizers":
		return 14
	case "managedFields":
		return 15
	}
	return 0
}

// Object encodes o as the real server orders it: kind, apiVersion,
// metadata (in ObjectMeta order), then the other fields by name.
func Object(o obj) []byte {
	raw, _ := ObjectTM(o)
	return raw
}

// ObjectTM is Object that also returns where the type fields
// end: "{" + raw[tm:] is the object without kind and apiVersion, as items
// of built-in lists are served.
func ObjectTM(o obj) (raw []byte, tm int) {
	var b bytes.Buffer
	b.Grow(256)
	b.WriteByte('{')
	n := 0
	field := func(k string, v any) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		String(&b, k)
		b.WriteByte(':')
		Value(&b, v)
	}
	if v, ok := o["kind"]; ok {
		field("kind", v)
	}
	if v, ok := o["apiVersion"]; ok {
		field("apiVersion", v)
	}
	tm = b.Len()
	if m, ok := o["metadata"].(obj); ok {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(`"metadata":`)
		Meta(&b, m)
	}
	keys := make([]string, 0, len(o))
	for k := range o {
		if k != "kind" && k != "apiVersion" && k != "metadata" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		field(k, o[k])
	}
	b.WriteByte('}')
	raw = b.Bytes()
	if tm > 1 && tm < len(raw)-1 && raw[tm] == ',' {
		tm++ // skip the comma after apiVersion
	} else {
		tm = 1
	}
	return raw, tm
}

// Meta writes metadata m in ObjectMeta's order, leaving out empty
// fields but a creationTimestamp set to nil, written null (as 1.33 writes
// the zero time: internal/review's answers acting as it).
func Meta(b *bytes.Buffer, m obj) {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if metaRank(k) > 0 && (!unstructured.IsEmpty(v) || k == "creationTimestamp" && v == nil) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y string) int { return metaRank(x) - metaRank(y) })
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		String(b, k)
		b.WriteByte(':')
		if list, ok := m[k].([]any); ok && k == "managedFields" {
			writeManagedFields(b, list)
			continue
		}
		Value(b, m[k])
	}
	b.WriteByte('}')
}

// writeManagedFields writes the entries with their fields in the real
// server's order.
func writeManagedFields(b *bytes.Buffer, list []any) {
	b.WriteByte('[')
	for i, v := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		e, ok := v.(obj)
		if !ok {
			Value(b, v)
			continue
		}
		b.WriteByte('{')
		n := 0
		for _, k := range []string{"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"} {
			if fv, ok := e[k]; ok {
				if n > 0 {
					b.WriteByte(',')
				}
				n++
				String(b, k)
				b.WriteByte(':')
				Value(b, fv)
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
}

// String writes s as a JSON string.
func String(b *bytes.Buffer, s string) {
	v, _ := json.Marshal(s)
	b.Write(v)
}

// Value writes v as JSON.
func Value(b *bytes.Buffer, v any) {
	raw, err := json.Marshal(v)
	if err != nil { // values come from encoding/json: always encodable
		panic("kubetest: encode value: " + err.Error())
	}
	b.Write(raw)
}

// wireStatus is a Status in the real server's field order (kind first).
type wireStatus struct {
	Kind       string              `json:"kind"`
	APIVersion string              `json:"apiVersion"`
	Metadata   kube.ListMeta       `json:"metadata"`
	Status     string              `json:"status,omitempty"`
	Message    string              `json:"message,omitempty"`
	Reason     string              `json:"reason,omitempty"`
	Details    *kube.StatusDetails `json:"details,omitempty"`
	Code       int32               `json:"code,omitempty"`
}

// Status encodes st as the real server does: kind first.
func Status(st *kube.Status) []byte {
	b, err := json.Marshal(wireStatus{
		Kind: "Status", APIVersion: "v1", Metadata: st.ListMeta,
		Status: st.Status, Message: st.Message, Reason: st.Reason,
		Details: st.Details, Code: st.Code,
	})
	if err != nil { // cannot happen: every field is plain data
		panic("kubetest: encode status: " + err.Error())
	}
	return b
}
