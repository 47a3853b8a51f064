// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// This file keeps metadata.managedFields, simplified. The real server runs
// structured-merge-diff against the kind's schema; the fake keeps one entry
// per manager, operation and subresource whose fieldsV1 lists:
//   - for Update (POST, PUT, non-apply PATCH): the fields this manager set
//     or changed, taken from other managers, and ".” for maps and lists it
//     created (labels, annotations, data, custom resource fields);
//   - for Apply: exactly the fields of the last applied configuration.
//
// Lists are atomic except metadata.finalizers (a set, "v:" entries) and
// metadata.ownerReferences (keyed by uid, "k:" entries). Fields that vanish
// from the object vanish from every entry; empty entries are dropped. Built-in
// kinds' top-level fields other than data, binaryData and stringData are
// structs and get no "." of their own, as in the real server.

// fieldSet is a set of field paths, each the path elements ("f:data",
// "f:a", `v:"x"`) joined by pathSep.
type fieldSet map[string]bool

const pathSep = "\x00"

// mfEntry is one managedFields entry.
type mfEntry struct {
	Manager, Operation, APIVersion, Time, Subresource string
	Fields                                            fieldSet
}

// parseManagedFields reads metadata.managedFields of a stored object.
func parseManagedFields(meta obj) []*mfEntry {
	list, _ := meta["managedFields"].([]any)
	out := make([]*mfEntry, 0, len(list))
	for _, v := range list {
		m, ok := v.(obj)
		if !ok {
			continue
		}
		e := &mfEntry{Manager: str(m, "manager"), Operation: str(m, "operation"),
			APIVersion: str(m, "apiVersion"), Time: str(m, "time"), Subresource: str(m, "subresource"),
			Fields: fieldSet{}}
		if t, ok := m["fieldsV1"].(obj); ok {
			treeToSet(t, nil, e.Fields)
		}
		out = append(out, e)
	}
	return out
}

// setManagedFields writes entries into meta, dropping empty ones.
func setManagedFields(meta obj, entries []*mfEntry) {
	var out []any
	for _, e := range entries {
		if len(e.Fields) == 0 {
			continue
		}
		m := obj{"manager": e.Manager, "operation": e.Operation, "apiVersion": e.APIVersion,
			"time": e.Time, "fieldsType": "FieldsV1", "fieldsV1": setToTree(e.Fields)}
		if e.Subresource != "" {
			m["subresource"] = e.Subresource
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		delete(meta, "managedFields")
		return
	}
	meta["managedFields"] = out
}

func treeToSet(t obj, prefix []string, out fieldSet) {
	for k, v := range t {
		if k == "." {
			out[strings.Join(prefix, pathSep)] = true
			continue
		}
		p := append(slices.Clip(prefix), k)
		if child, _ := v.(obj); len(child) > 0 {
			treeToSet(child, p, out)
		} else {
			out[strings.Join(p, pathSep)] = true
		}
	}
}

func setToTree(set fieldSet) obj {
	root := obj{}
	nodes := make(map[string]obj, len(set))
	for p := range set {
		node := root
		for e := range strings.SplitSeq(p, pathSep) {
			child, ok := node[e].(obj)
			if !ok {
				child = obj{}
				node[e] = child
			}
			node = child
		}
		nodes[p] = node
	}
	for _, node := range nodes {
		if len(node) > 0 {
			node["."] = obj{}
		}
	}
	return root
}

// fieldDiff collects the fields of next that are new or changed compared
// with prev (nil for a create). With dots, maps and lists that next adds
// are members too, as Update entries record them.
func fieldDiff(res *resource, prev, next obj, dots bool) fieldSet {
	set := fieldSet{}
	for k, v := range next {
		switch k {
		case "apiVersion", "kind":
			continue
		case "metadata":
			m, _ := v.(obj)
			var pm obj
			if prev != nil {
				pm, _ = prev["metadata"].(obj)
			}
			for _, mk := range []string{"labels", "annotations", "finalizers", "ownerReferences"} {
				mv, ok := m[mk]
				if !ok {
					continue
				}
				old, oldOK := pm[mk]
				p := []string{"f:metadata", "f:" + mk}
				if mk == "finalizers" || mk == "ownerReferences" {
					diffList(set, p, mk, mv, old, oldOK, dots)
				} else {
					diffValue(set, p, mv, old, oldOK, dots)
				}
			}
		default:
			old, oldOK := prev[k]
			topDot := dots && (res.CRD != "" || k == "data" || k == "binaryData" || k == "stringData")
			diffTop(set, []string{"f:" + k}, v, old, oldOK, topDot, dots)
		}
	}
	return set
}

// diffTop is diffValue for a top-level field, whose own "." depends on
// whether the kind declares it as a map or a struct.
func diffTop(set fieldSet, p []string, v, old any, oldOK, topDot, dots bool) {
	m, isMap := v.(obj)
	if !isMap || len(m) == 0 {
		diffValue(set, p, v, old, oldOK, dots)
		return
	}
	oldMap, oldIsMap := old.(obj)
	if topDot && (!oldOK || !oldIsMap) {
		set[strings.Join(p, pathSep)] = true
	}
	for k, cv := range m {
		ov, ok := oldMap[k]
		diffValue(set, append(slices.Clip(p), "f:"+k), cv, ov, ok, dots)
	}
}

func diffValue(set fieldSet, p []string, v, old any, oldOK, dots bool) {
	m, isMap := v.(obj)
	if !isMap || len(m) == 0 {
		if !oldOK || !reflect.DeepEqual(v, old) {
			set[strings.Join(p, pathSep)] = true
		}
		return
	}
	oldMap, oldIsMap := old.(obj)
	if dots && (!oldOK || !oldIsMap) {
		set[strings.Join(p, pathSep)] = true
	}
	for k, cv := range m {
		ov, ok := oldMap[k]
		diffValue(set, append(slices.Clip(p), "f:"+k), cv, ov, ok, dots)
	}
}

// diffList handles finalizers (a set of strings) and ownerReferences (keyed
// by uid).
func diffList(set fieldSet, p []string, name string, v, old any, oldOK, dots bool) {
	items, _ := v.([]any)
	oldItems, _ := old.([]any)
	if dots && (!oldOK || old == nil) && len(items) > 0 {
		set[strings.Join(p, pathSep)] = true
	}
	for _, it := range items {
		el := listElement(name, it)
		if el == "" {
			continue
		}
		found := false
		for _, o := range oldItems {
			if listElement(name, o) == el && reflect.DeepEqual(o, it) {
				found = true
			}
		}
		if !found {
			set[strings.Join(append(slices.Clip(p), el), pathSep)] = true
		}
	}
}

// listElement is the path element of a list item: `v:"x"` for a finalizer,
// `k:{"uid":"..."}` for an owner reference.
func listElement(list string, item any) string {
	if list == "finalizers" {
		s, ok := item.(string)
		if !ok {
			return ""
		}
		b, _ := json.Marshal(s)
		return "v:" + string(b)
	}
	m, _ := item.(obj)
	uid, ok := m["uid"].(string)
	if !ok {
		return ""
	}
	b, _ := json.Marshal(map[string]string{"uid": uid})
	return "k:" + string(b)
}

// lookup returns the value at a field path in o.
func lookup(o obj, p string) (any, bool) {
	var cur any = o
	for e := range strings.SplitSeq(p, pathSep) {
		switch {
		case strings.HasPrefix(e, "f:"):
			m, ok := cur.(obj)
			if !ok {
				return nil, false
			}
			if cur, ok = m[e[2:]]; !ok {
				return nil, false
			}
		case strings.HasPrefix(e, "v:"), strings.HasPrefix(e, "k:"):
			items, _ := cur.([]any)
			list := "ownerReferences"
			if e[0] == 'v' {
				list = "finalizers"
			}
			i := slices.IndexFunc(items, func(it any) bool { return listElement(list, it) == e })
			if i < 0 {
				return nil, false
			}
			cur = items[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// prune drops from s the paths o no longer has.
func (s fieldSet) prune(o obj) {
	for p := range s {
		if _, ok := lookup(o, p); !ok {
			delete(s, p)
		}
	}
}

// fieldPathString renders a path as apply conflicts name it: ".data.x",
// `.metadata.finalizers[="x"]`.
func fieldPathString(p string) string {
	var b strings.Builder
	for e := range strings.SplitSeq(p, pathSep) {
		switch {
		case strings.HasPrefix(e, "f:"):
			b.WriteString("." + e[2:])
		case strings.HasPrefix(e, "v:"):
			b.WriteString("[=" + e[2:] + "]")
		case strings.HasPrefix(e, "k:"):
			var m map[string]string
			_ = json.Unmarshal([]byte(e[2:]), &m)
			b.WriteString(`[uid="` + m["uid"] + `"]`)
		}
	}
	return b.String()
}

// recordUpdate records an Update by manager: the changed fields become its
// own and leave every other entry; fields next lacks leave every entry.
func recordUpdate(res *resource, meta obj, prev, next obj, manager, apiVersion, subresource, now string) {
	entries := parseManagedFields(meta)
	changed := fieldDiff(res, prev, next, true)
	var mine *mfEntry
	for _, e := range entries {
		e.Fields.prune(next)
		if e.Manager == manager && e.Operation == "Update" && e.Subresource == subresource {
			mine = e
			continue
		}
		for p := range changed {
			delete(e.Fields, p)
		}
	}
	if len(changed) > 0 {
		if mine == nil {
			mine = &mfEntry{Manager: manager, Operation: "Update", Subresource: subresource, Fields: fieldSet{}}
			entries = append(entries, mine)
		}
		for p := range changed {
			mine.Fields[p] = true
		}
		mine.APIVersion, mine.Time = apiVersion, now
	}
	setManagedFields(meta, entries)
}

// pruneManagedFields drops from every entry the fields o does not have.
func pruneManagedFields(meta, o obj) {
	entries := parseManagedFields(meta)
	for _, e := range entries {
		e.Fields.prune(o)
	}
	setManagedFields(meta, entries)
}
