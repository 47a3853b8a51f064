// SPDX-License-Identifier: Apache-2.0

package fieldmanager

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file is the managedFields entries of an object and their wire
// form: how a write's managedFields are decoded (as the real server does:
// any malformed entry makes the whole value invalid), when they clear
// the tracking ([] or [{}]), and the order they are stored in. How an
// Update changes them is in manager.go, an apply in apply.go.

// Entry is one managedFields entry.
type Entry struct {
	Manager, Operation, APIVersion, Subresource string
	// Time is the entry's time as written (RFC 3339, UTC); "" when the
	// entry has none (the real server writes none for a manager whose
	// apply changed nothing).
	Time   string
	Fields *fieldSet
}

// sameManager reports whether e and o are the same manager: the real
// server's manager identifier leaves out the apiVersion of Apply entries.
func (e *Entry) sameManager(o *Entry) bool {
	return e.Manager == o.Manager && e.Operation == o.Operation && e.Subresource == o.Subresource &&
		(e.Operation == "Apply" || e.APIVersion == o.APIVersion)
}

// Identifier is the manager's identifier as the real server builds it
// (the JSON of the entry's naming fields), which orders conflicts.
func (e *Entry) Identifier() string {
	var b strings.Builder
	b.WriteByte('{')
	add := func(k, v string) {
		if v == "" {
			return
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + k + `":`)
		raw, _ := json.Marshal(v)
		b.Write(raw)
	}
	add("manager", e.Manager)
	add("operation", e.Operation)
	if e.Operation != "Apply" {
		add("apiVersion", e.APIVersion)
	}
	add("subresource", e.Subresource)
	b.WriteByte('}')
	return b.String()
}

// decodeManagedFields reads a managedFields value as the real server
// does; any entry that is not well formed makes the whole value invalid.
func decodeManagedFields(v any) ([]*Entry, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("managedFields is not a list")
	}
	var out []*Entry
	for i, item := range list {
		m, ok := item.(obj)
		if !ok {
			return nil, fmt.Errorf("managed fields entry %d is not an object", i)
		}
		e := &Entry{Manager: unstructured.String(m, "manager"), Operation: unstructured.String(m, "operation"),
			APIVersion: unstructured.String(m, "apiVersion"), Subresource: unstructured.String(m, "subresource")}
		switch {
		case e.Operation != "Apply" && e.Operation != "Update":
			return nil, fmt.Errorf("operation must be `Apply` or `Update`")
		case e.APIVersion == "":
			return nil, fmt.Errorf("apiVersion must not be empty")
		case unstructured.String(m, "fieldsType") == "":
			return nil, fmt.Errorf("missing fieldsType in managed fields entry %d", i)
		case unstructured.String(m, "fieldsType") != "FieldsV1":
			return nil, fmt.Errorf("invalid fieldsType %q in managed fields entry %d", unstructured.String(m, "fieldsType"), i)
		}
		if t, ok := m["time"].(string); ok {
			parsed, err := time.Parse(time.RFC3339, t)
			if err != nil {
				return nil, fmt.Errorf("managed fields entry %d: time: %v", i, err)
			}
			e.Time = parsed.UTC().Format(time.RFC3339)
		}
		fields, err := parseFieldsV1(m["fieldsV1"])
		if err != nil {
			return nil, fmt.Errorf("error decoding set: %v", err)
		}
		e.Fields = fields
		// A later entry of the same manager replaces an earlier one.
		out = slices.DeleteFunc(out, e.sameManager)
		out = append(out, e)
	}
	return out, nil
}

// storedManagedFields reads the managedFields of a stored object; stored
// ones are always well formed.
func storedManagedFields(meta obj) []*Entry {
	entries, _ := decodeManagedFields(meta["managedFields"])
	return entries
}

// isResetManagedFields reports whether a write's managedFields clear them:
// an empty list, or one entry with nothing in it.
func isResetManagedFields(v any) bool {
	list, ok := v.([]any)
	if !ok {
		return false
	}
	if len(list) == 0 {
		return true
	}
	if len(list) != 1 {
		return false
	}
	m, ok := list[0].(obj)
	if !ok {
		return false
	}
	for _, k := range []string{"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"} {
		if v, ok := m[k]; ok && v != nil && v != "" {
			return false
		}
	}
	return true
}

// SetManagedFields writes entries into meta in the real server's order
// (Apply before Update, then by time, manager, apiVersion and
// subresource), dropping empty ones; none removes the field.
func SetManagedFields(meta obj, entries []*Entry) {
	entries = slices.DeleteFunc(slices.Clone(entries), func(e *Entry) bool { return e.Fields.empty() })
	if len(entries) == 0 {
		delete(meta, "managedFields")
		return
	}
	slices.SortStableFunc(entries, func(a, b *Entry) int {
		if a.Operation != b.Operation {
			return strings.Compare(a.Operation, b.Operation)
		}
		if ta, tb := entryUnix(a), entryUnix(b); ta != tb {
			return int(ta - tb)
		}
		if a.Manager != b.Manager {
			return strings.Compare(a.Manager, b.Manager)
		}
		if a.APIVersion != b.APIVersion {
			return strings.Compare(a.APIVersion, b.APIVersion)
		}
		return strings.Compare(a.Subresource, b.Subresource)
	})
	out := make([]any, len(entries))
	for i, e := range entries {
		m := obj{"operation": e.Operation, "apiVersion": e.APIVersion,
			"fieldsType": "FieldsV1", "fieldsV1": e.Fields.fieldsV1()}
		if e.Manager != "" {
			m["manager"] = e.Manager
		}
		if e.Time != "" {
			m["time"] = e.Time
		}
		if e.Subresource != "" {
			m["subresource"] = e.Subresource
		}
		out[i] = m
	}
	meta["managedFields"] = out
}

func entryUnix(e *Entry) int64 {
	t, err := time.Parse(time.RFC3339, e.Time)
	if err != nil {
		return 0
	}
	return t.Unix()
}
