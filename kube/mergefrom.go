// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kubeloop/kubeloop/internal/jsondec"
	"github.com/kubeloop/kubeloop/internal/jsonpatch"
)

// MergeFrom returns a JSON merge patch (RFC 7386) of what changes between
// original, as it is now, and the object the patch is sent with: the
// read, change, write of a reconcile, without a Conflict when someone
// else wrote the object meanwhile.
//
//	patch := kube.MergeFrom(w) // w as read
//	w.Status.Ready = true      // change w itself: no copy needed
//	err := c.Status().Patch(ctx, w, patch)
//
// Guarantees:
//   - original is encoded at once, so it may be changed afterwards, as
//     above; a copy (controller-runtime's MergeFrom(obj.DeepCopy())) works
//     the same.
//   - The document is the diff between the JSON of original and of the
//     object given to Patch, computed when Patch sends it: a changed or
//     added field with its new value, null for a map key or field
//     removed, objects member by member, and lists whole (a merge patch
//     replaces lists: a list two writers both change, such as the
//     conditions of a status, is the last writer's).
//   - apiVersion, kind and metadata.resourceVersion are never in it, so
//     the server applies it to whatever version it holds: fields the
//     reconcile did not change keep the value another writer gave them.
//     [MergeFromWithOptimisticLock] puts original's resourceVersion in,
//     for the server to refuse the patch with a Conflict ([IsConflict])
//     if the object changed since it was read.
//   - No change sends {} (still a request, as with controller-runtime;
//     skip the write when nothing changed, to save it).
//
// The cost is an encoding of original now and, when sent, an encoding of
// the object and a diff, O(size of the object). A patch is for one
// write: the object read back differs from original in what the server
// set.
func MergeFrom(original Object) Patch {
	return MergeFromWithOptions(original)
}

// MergeFromWithOptions is [MergeFrom] refined by opts, such as
// [MergeFromWithOptimisticLock].
func MergeFromWithOptions(original Object, opts ...MergeFromOption) Patch {
	m := &mergeFrom{rv: original.GetObjectMeta().ResourceVersion}
	for _, o := range opts {
		o.applyToMergeFrom(m)
	}
	m.original, m.err = genericJSON(original)
	return Patch{Type: MergePatch, merge: m}
}

// MergeFromOption refines [MergeFromWithOptions].
type MergeFromOption interface {
	applyToMergeFrom(*mergeFrom)
}

// MergeFromWithOptimisticLock makes a [MergeFrom] patch carry original's
// resourceVersion (metadata.resourceVersion), so the server refuses it
// with a Conflict ([IsConflict]) if the object changed since original
// was read. Use it when the patch replaces a list others may change too,
// such as metadata.finalizers. An original without a resourceVersion
// makes the patch fail before it is sent.
type MergeFromWithOptimisticLock struct{}

func (MergeFromWithOptimisticLock) applyToMergeFrom(m *mergeFrom) { m.lock = true }

// mergeFrom is what MergeFrom keeps of the original. It is not changed
// once made, so a Patch holding it may be copied and used from any
// goroutine.
type mergeFrom struct {
	original map[string]any // original's JSON, decoded; nil if err
	err      error          // the encoding of original failed
	rv       string         // original's resourceVersion
	lock     bool           // put rv in the patch
}

// DataFor returns the patch document to send with modified: Data for a
// patch written out, the diff from the original to modified for a patch
// made by [MergeFrom]. The clients of this module call it as they send a
// patch; a client of your own that takes a Patch should too.
func (p Patch) DataFor(modified Object) ([]byte, error) {
	if p.merge == nil {
		return p.Data, nil
	}
	return p.merge.dataFor(modified)
}

// dataFor is DataFor of a patch made by MergeFrom.
func (m *mergeFrom) dataFor(modified Object) ([]byte, error) {
	if m.err != nil {
		return nil, fmt.Errorf("make merge patch: encode the original: %w", m.err)
	}
	if m.lock && m.rv == "" {
		return nil, errors.New("make merge patch: the original has no resourceVersion for the optimistic lock")
	}
	after, err := genericJSON(modified)
	if err != nil {
		return nil, fmt.Errorf("make merge patch: encode the object: %w", err)
	}
	patch := jsonpatch.CreateMerge(m.original, after).(map[string]any)
	if m.lock {
		meta, _ := patch["metadata"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
			patch["metadata"] = meta
		}
		meta["resourceVersion"] = m.rv
	}
	data, err := json.Marshal(patch)
	if err != nil {
		return nil, fmt.Errorf("make merge patch: %w", err)
	}
	return data, nil
}

// genericJSON returns obj's JSON as generic values (numbers as
// json.Number, so that they compare exactly), without apiVersion, kind
// and metadata.resourceVersion.
func genericJSON(obj Object) (map[string]any, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := jsondec.New(jsondec.Options{UseNumber: true}).Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("the object encodes as null")
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "resourceVersion")
	}
	return m, nil
}
