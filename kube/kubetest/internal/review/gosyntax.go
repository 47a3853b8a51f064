// SPDX-License-Identifier: Apache-2.0

package review

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// sentMeta is the metadata an access review must not have, as the value
// of its field error: JSON (its encoding by the server), or in Go syntax
// as 1.33 prints a v1.ObjectMeta (fielderr.Error.GoSyntax).
type sentMeta struct {
	raw  json.RawMessage
	meta obj
}

// MarshalJSON returns the metadata as the server encoded it.
func (m sentMeta) MarshalJSON() ([]byte, error) { return m.raw, nil }

// GoString prints the metadata as a v1.ObjectMeta in Go syntax: the
// strings, labels, annotations, finalizers and managedFields sent, the
// rest zero. Pointers print a fresh address, as the real ones differ on
// every answer.
func (m sentMeta) GoString() string {
	str := func(k string) string { s, _ := m.meta[k].(string); return fmt.Sprintf("%q", s) }
	strMap := func(k string) string {
		v, _ := m.meta[k].(map[string]any)
		if v == nil {
			return "map[string]string(nil)"
		}
		parts := make([]string, 0, len(v))
		for _, key := range slices.Sorted(maps.Keys(v)) {
			s, _ := v[key].(string)
			parts = append(parts, fmt.Sprintf("%q:%q", key, s))
		}
		return "map[string]string{" + strings.Join(parts, ", ") + "}"
	}
	finalizers := "[]string(nil)"
	if list, _ := m.meta["finalizers"].([]any); list != nil {
		finalizers = fmt.Sprintf("%#v", list)
		finalizers = "[]string{" + strings.TrimSuffix(strings.TrimPrefix(finalizers, "[]interface {}{"), "}") + "}"
	}
	return fmt.Sprintf(`v1.ObjectMeta{Name:%s, GenerateName:%s, Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, `+
		`CreationTimestamp:%#v, DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), Labels:%s, Annotations:%s, `+
		`OwnerReferences:[]v1.OwnerReference(nil), Finalizers:%s, ManagedFields:%s}`,
		str("name"), str("generateName"), time.Time{}.UTC(), strMap("labels"), strMap("annotations"), finalizers, goManagedFields(m.meta))
}

// goManagedFields prints metadata's managedFields as a
// []v1.ManagedFieldsEntry in Go syntax.
func goManagedFields(meta obj) string {
	list, _ := meta["managedFields"].([]any)
	if list == nil {
		return "[]v1.ManagedFieldsEntry(nil)"
	}
	parts := make([]string, 0, len(list))
	for _, e := range list {
		entry, _ := e.(map[string]any)
		s := func(k string) string { v, _ := entry[k].(string); return v }
		at, _ := time.Parse(time.RFC3339, s("time"))
		parts = append(parts, fmt.Sprintf(`v1.ManagedFieldsEntry{Manager:%q, Operation:%q, APIVersion:%q, Time:%#v, FieldsType:%q, FieldsV1:(*v1.FieldsV1)(%p), Subresource:%q}`,
			s("manager"), s("operation"), s("apiVersion"), at.UTC(), s("fieldsType"), entry, s("subresource")))
	}
	return "[]v1.ManagedFieldsEntry{" + strings.Join(parts, ", ") + "}"
}
