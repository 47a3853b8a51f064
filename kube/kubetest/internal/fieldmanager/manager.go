// SPDX-License-Identifier: Apache-2.0

package fieldmanager

import (
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file keeps metadata.managedFields as the real server's field
// manager does on an Update. Each entry (managedfields.go) is one
// manager's set of fields (set.go), identified by manager,
// operation, subresource and, for Update, the apiVersion it wrote. An
// Update (POST, PUT, non-apply PATCH):
//   - starts from the managedFields the write sets, when they decode (a
//     PUT or patch that sets them replaces them; [] or [{}] clears them),
//     else from the stored ones; a subresource write always uses the
//     stored ones;
//   - is not tracked at all when that leaves none on an existing object
//     (after a clear, only an apply starts tracking again);
//   - gives the writer every field it adds or changes (compare.go),
//     taking them from other entries, and takes the fields it removes
//     from every entry; the writer's time is now when it took anything;
//   - drops entries left empty, entries of versions the kind no longer
//     serves, and merges the oldest Update entries into "ancient-changes"
//     beyond ten.
//
// Fields a strategy resets (status on the main resource of a kind with a
// status subresource; all but status on the subresource) and the
// metadata the server owns (name, uid, resourceVersion...) are never
// recorded. Server-side apply is in apply.go.

// obj is a decoded JSON object.
type obj = map[string]any

// strippedFields are the fields no manager owns: the object's identity
// and what the server maintains.
var strippedFields = func() *fieldSet {
	s := newFieldSet()
	s.insert("f:apiVersion")
	s.insert("f:kind")
	s.insert("f:metadata")
	for _, f := range []string{"name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName",
		"generation", "managedFields", "resourceVersion"} {
		s.insert("f:metadata", "f:"+f)
	}
	return s
}()

// Manager computes the managedFields of one write.
type Manager struct {
	// Schema is the kind's schema; Builtin says its objects are typed Go
	// objects in the real server (not custom resources); StatusSub says
	// the kind has a status subresource; APIVersion is the one written.
	Schema     *schema.Schema
	Builtin    bool
	StatusSub  bool
	APIVersion string
	Sub        string // "", "status", "scale" or "approval" (recorded as status)
	// StatusResetMeta are the metadata fields (labels, ownerReferences)
	// a write to the status subresource cannot change; it changes status
	// and the rest of metadata, and records them.
	StatusResetMeta []string
	// Served says whether the kind is served at an apiVersion: entries of
	// other versions are dropped, as the real server cannot convert to
	// them.
	Served func(apiVersion string) bool
	Now    string
}

// typed says objects of the kind are typed Go objects in the real server.
func (fm *Manager) typed() bool { return fm.Builtin }

// reset keeps a set to the fields this endpoint writes: without status
// on the main resource of a kind with a status subresource, status and
// metadata (but StatusResetMeta) on the subresource.
func (fm *Manager) reset(s *fieldSet) *fieldSet {
	switch {
	case fm.Sub == "status" || fm.Sub == "approval":
		out := newFieldSet()
		for _, k := range []string{"f:status", "f:metadata"} {
			c := s.child(k)
			if c == nil {
				continue
			}
			if out.children == nil {
				out.children = map[string]*fieldSet{}
			}
			kept := c.clone()
			if k == "f:metadata" {
				drop := newFieldSet()
				for _, f := range fm.StatusResetMeta {
					drop.insert("f:" + f)
				}
				kept = c.without(drop)
			}
			kept.member = c.member
			out.children[k] = kept
		}
		return out
	case fm.StatusSub:
		only := newFieldSet()
		only.insert("f:status")
		return s.without(only)
	}
	return s
}

// reconcile drops the entries of versions the kind is not served at.
func (fm *Manager) reconcile(entries []*Entry) []*Entry {
	return slices.DeleteFunc(entries, func(e *Entry) bool { return !fm.Served(e.APIVersion) })
}

// entry returns the entry of manager m (creating it, without fields).
func entryOf(entries *[]*Entry, m *Entry) *Entry {
	for _, e := range *entries {
		if e.sameManager(m) {
			return e
		}
	}
	e := &Entry{Manager: m.Manager, Operation: m.Operation, APIVersion: m.APIVersion,
		Subresource: m.Subresource, Fields: newFieldSet()}
	*entries = append(*entries, e)
	return e
}

// writer is the entry identity of this write's manager.
func (fm *Manager) writer(manager, operation string) *Entry {
	if manager == "" {
		manager = "unknown"
	}
	return &Entry{Manager: manager, Operation: operation, APIVersion: fm.APIVersion, Subresource: fm.Sub}
}

// zeroObject is the object a create starts from: empty, with the zero
// fields of a built-in kind (compareObjects adds them).
func zeroObject() obj { return obj{} }

// withoutManaged returns o without metadata.managedFields (a shallow
// copy when it has them), which are not part of what is compared.
func withoutManaged(o obj) obj {
	m, ok := o["metadata"].(obj)
	if !ok {
		return o
	}
	if _, has := m["managedFields"]; !has {
		return o
	}
	out := make(obj, len(o))
	for k, v := range o {
		out[k] = v
	}
	nm := make(obj, len(m))
	for k, v := range m {
		if k != "managedFields" {
			nm[k] = v
		}
	}
	out["metadata"] = nm
	return out
}

// track records an Update by manager from prev to next into entries. An
// error (a list whose entries cannot be told apart) leaves the fields
// unknown, as the real server does.
func (fm *Manager) track(entries []*Entry, prev, next obj, manager string) ([]*Entry, error) {
	entries = fm.reconcile(entries)
	c, err := compareObjects(fm.Schema, withoutManaged(prev), withoutManaged(next), fm.typed(), fm.typed())
	if err != nil {
		return nil, err
	}
	c.filter(fm.reset)
	changed := c.changed()
	for _, e := range entries {
		e.Fields = e.Fields.difference(changed).difference(c.removed)
	}
	entries = slices.DeleteFunc(entries, func(e *Entry) bool { return e.Fields.empty() })
	if mine := changed.difference(strippedFields); !mine.empty() {
		e := entryOf(&entries, fm.writer(manager, "Update"))
		e.Fields, e.Time = e.Fields.union(mine), fm.Now
	}
	return capUpdateManagers(entries), nil
}

// RecordUpdate writes into meta (next's) the managedFields after an
// Update by manager. prev is the stored object (nil for a create);
// requested is metadata.managedFields as the write sent it (ok: it did).
func (fm *Manager) RecordUpdate(meta, prev, next obj, requested any, ok bool, manager string) {
	var entries []*Entry
	switch {
	case fm.Sub != "" || !ok:
		if prev != nil {
			entries = storedManagedFields(unstructured.Metadata(prev))
		}
	case isResetManagedFields(requested):
	default:
		var err error
		if entries, err = decodeManagedFields(requested); err != nil || len(entries) == 0 {
			entries = nil
			if prev != nil {
				entries = storedManagedFields(unstructured.Metadata(prev))
			}
		}
	}
	if len(entries) == 0 && prev != nil {
		delete(meta, "managedFields") // not tracked until an apply
		return
	}
	from := prev
	if from == nil {
		from = zeroObject()
	}
	entries, err := fm.track(entries, from, next, manager)
	if err != nil {
		delete(meta, "managedFields")
		return
	}
	SetManagedFields(meta, entries)
}

// maxUpdateManagers is how many Update entries an object keeps before the
// oldest are merged into "ancient-changes".
const maxUpdateManagers = 10

// capUpdateManagers merges the oldest Update entries of each apiVersion
// into one "ancient-changes" entry while there are more than ten.
func capUpdateManagers(entries []*Entry) []*Entry {
	var updaters []*Entry
	for _, e := range entries {
		if e.Operation == "Update" {
			updaters = append(updaters, e)
		}
	}
	if len(updaters) <= maxUpdateManagers {
		return entries
	}
	slices.SortStableFunc(updaters, func(a, b *Entry) int {
		if ta, tb := entryUnix(a), entryUnix(b); ta != tb {
			return int(ta - tb)
		}
		return strings.Compare(a.Identifier(), b.Identifier())
	})
	firstOf := map[string]*Entry{}
	n := len(updaters)
	for _, e := range updaters {
		if n <= maxUpdateManagers {
			break
		}
		first, ok := firstOf[e.APIVersion]
		if !ok {
			firstOf[e.APIVersion] = e
			continue
		}
		bucket := &Entry{Manager: "ancient-changes", Operation: "Update", APIVersion: e.APIVersion}
		var b *Entry
		for _, x := range entries {
			if x.sameManager(bucket) {
				b = x
			}
		}
		if b == nil {
			first.Manager, first.Subresource = bucket.Manager, ""
			b = first
		}
		b.Fields, b.Time = b.Fields.union(e.Fields), e.Time
		entries = slices.DeleteFunc(entries, func(x *Entry) bool { return x == e })
		n--
	}
	return entries
}
