// SPDX-License-Identifier: Apache-2.0

package kubetest

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

// applyConflict is one field of another manager an apply would change.
type applyConflict struct {
	manager *mfEntry
	path    []string
}

// applyError is an apply's failure: its conflicts, or another error.
type applyError struct {
	conflicts []applyConflict
	// internal, when set, is the message of an internal error (500)
	// instead of conflicts.
	internal string
}

func cloneEntries(entries []*mfEntry) []*mfEntry {
	out := make([]*mfEntry, len(entries))
	for i, e := range entries {
		c := *e
		c.Fields = e.Fields.clone()
		out[i] = &c
	}
	return out
}

// apply merges config into live (nil: the object is created) for
// manager, with the entries the object has. It returns the object to
// store and its entries; the applier's entry has fm.now as its time when
// the object changed.
func (fm *fieldManager) apply(live, config obj, entries []*mfEntry, manager string, force bool) (obj, []*mfEntry, *applyError) {
	sch := fm.schema
	if live == nil {
		live = zeroObject()
	} else if len(entries) == 0 {
		var err error
		if entries, err = fm.track(nil, zeroObject(), live, "before-first-apply"); err != nil {
			return nil, nil, &applyError{internal: "failed to create manager for existing fields: " + err.Error()}
		}
	}
	entries = fm.reconcile(entries)
	merged, _ := mergeApplied(sch, live, config).(obj)
	set, _ := toFieldSet(sch, config)
	set = fm.reset(set)
	me := entryOf(&entries, fm.writer(manager, "Apply"))
	last := me.Fields
	me.Fields, me.APIVersion = set, fm.apiVersion
	next := fm.prune(merged, entries, last)

	c, err := compareObjects(sch, withoutManaged(live), withoutManaged(next), fm.typed(), fm.typed())
	if err != nil {
		return nil, nil, &applyError{internal: "failed to compare objects: " + err.Error()}
	}
	c.filter(fm.reset)
	changed := c.changed()
	var conflicts []applyConflict
	for _, e := range entries {
		if e == me {
			continue
		}
		taken := e.Fields.intersection(changed)
		for _, p := range taken.paths() {
			conflicts = append(conflicts, applyConflict{manager: e, path: p})
		}
		e.Fields = e.Fields.difference(taken).difference(c.removed)
	}
	if len(conflicts) > 0 && !force {
		return nil, nil, &applyError{conflicts: conflicts}
	}
	if !jsonpatch.Equal(live, next) {
		me.Time = fm.now
	}
	me.Fields = me.Fields.difference(strippedFields)
	entries = slices.DeleteFunc(entries, func(e *mfEntry) bool { return e.Fields.empty() })
	return next, entries, nil
}

// prune removes from merged the fields the applier's last configuration
// (last) had and no manager owns any more, each with what is under it.
func (fm *fieldManager) prune(merged obj, entries []*mfEntry, last *fieldSet) obj {
	if last.empty() {
		return merged
	}
	sch := fm.schema
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

// managerName names a manager as conflicts print it.
func managerName(e *mfEntry) string {
	name := strconv.Quote(e.Manager)
	if e.Subresource != "" {
		name += " with subresource " + strconv.Quote(e.Subresource)
	}
	if e.Operation == "Update" {
		name += " using " + e.APIVersion
	}
	return name
}
