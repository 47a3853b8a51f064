// SPDX-License-Identifier: Apache-2.0

package fieldmanager

import (
	"slices"
	"strconv"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
)

// This file is server-side apply as the real server's field manager does
// it: the configuration merged into the live object by the schema, the
// applier's entry set to the configuration's fields, what it stopped
// applying pruned, and the fields other managers own that the apply
// changes reported as conflicts (or taken, when forced).

// Conflict is one field of another manager an apply would change.
type Conflict struct {
	Manager *Entry
	Path    []string
}

// ApplyError is an apply's failure: its conflicts, or another error.
type ApplyError struct {
	Conflicts []Conflict
	// Internal, when set, is the message of an internal error (500)
	// instead of conflicts.
	Internal string
}

func cloneEntries(entries []*Entry) []*Entry {
	out := make([]*Entry, len(entries))
	for i, e := range entries {
		c := *e
		c.Fields = e.Fields.clone()
		out[i] = &c
	}
	return out
}

// Apply merges config into live (nil: the object is created) for
// manager, with the entries the object has. It returns the object to
// store and its entries; the applier's entry has fm.now as its time when
// the object changed.
func (fm *Manager) Apply(live, config obj, entries []*Entry, manager string, force bool) (obj, []*Entry, *ApplyError) {
	sch := fm.Schema
	if live == nil {
		live = zeroObject()
	} else if len(entries) == 0 {
		var err error
		if entries, err = fm.track(nil, zeroObject(), live, "before-first-apply"); err != nil {
			return nil, nil, &ApplyError{Internal: "failed to create manager for existing fields: " + err.Error()}
		}
	}
	entries = fm.reconcile(entries)
	merged, _ := mergeApplied(sch, live, config).(obj)
	set, _ := toFieldSet(sch, config)
	set = fm.reset(set)
	me := entryOf(&entries, fm.writer(manager, "Apply"))
	last := me.Fields
	me.Fields, me.APIVersion = set, fm.APIVersion
	next := fm.prune(merged, entries, last)

	c, err := compareObjects(sch, withoutManaged(live), withoutManaged(next), fm.typed(), fm.typed())
	if err != nil {
		return nil, nil, &ApplyError{Internal: "failed to compare objects: " + err.Error()}
	}
	c.filter(fm.reset)
	changed := c.changed()
	var conflicts []Conflict
	for _, e := range entries {
		if e == me {
			continue
		}
		taken := e.Fields.intersection(changed)
		for _, p := range taken.paths() {
			conflicts = append(conflicts, Conflict{Manager: e, Path: p})
		}
		e.Fields = e.Fields.difference(taken).difference(c.removed)
	}
	if len(conflicts) > 0 && !force {
		return nil, nil, &ApplyError{Conflicts: conflicts}
	}
	if !jsonpatch.Equal(live, next) {
		me.Time = fm.Now
	}
	me.Fields = me.Fields.difference(strippedFields)
	entries = slices.DeleteFunc(entries, func(e *Entry) bool { return e.Fields.empty() })
	return next, entries, nil
}

// prune removes from merged the fields the applier's last configuration
// (last) had and no manager owns any more, each with what is under it.
func (fm *Manager) prune(merged obj, entries []*Entry, last *fieldSet) obj {
	if last.empty() {
		return merged
	}
	sch := fm.Schema
	named := func(v obj) *fieldSet {
		fs, _ := toFieldSet(sch, v)
		return ensureNamedFields(sch, fs)
	}
	remove := func(v obj, set *fieldSet) obj {
		out, ok := removeFields(sch, v, set)
		m, _ := out.(obj)
		if !ok || m == nil {
			return obj{}
		}
		return m
	}
	lastNamed := ensureNamedFields(sch, last)
	owned := newFieldSet()
	for _, e := range entries {
		owned = owned.union(e.Fields)
	}
	all := named(merged)
	withoutLast := remove(merged, lastNamed)
	kept := remove(merged, all.difference(named(withoutLast).union(ensureNamedFields(sch, owned))))
	return remove(merged, all.difference(named(kept)).intersection(lastNamed))
}

// ManagerName names a manager as conflicts print it.
func ManagerName(e *Entry) string {
	name := strconv.Quote(e.Manager)
	if e.Subresource != "" {
		name += " with subresource " + strconv.Quote(e.Subresource)
	}
	if e.Operation == "Update" {
		name += " using " + e.APIVersion
	}
	return name
}
