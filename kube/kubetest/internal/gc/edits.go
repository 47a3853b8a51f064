// SPDX-License-Identifier: Apache-2.0

package gc

import (
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// The edits below change o, a decoded object the caller then writes as
// kube-controller-manager's update; each reports whether it changed o, so
// that an unchanged object is not written.

// DropOwnerRefs removes from o the owner references to the uids.
func DropOwnerRefs(o map[string]any, uids []string) bool {
	meta := unstructured.Metadata(o)
	refs, _ := meta["ownerReferences"].([]any)
	keep := make([]any, 0, len(refs))
	for _, r := range refs {
		if m, ok := r.(map[string]any); !ok || !slices.Contains(uids, unstructured.String(m, "uid")) {
			keep = append(keep, r)
		}
	}
	if len(keep) == len(refs) {
		return false
	}
	if len(keep) == 0 {
		delete(meta, "ownerReferences")
	} else {
		meta["ownerReferences"] = keep
	}
	return true
}

// UnblockOwnerRefs sets blockOwnerDeletion false in every owner reference
// of o that has it true.
func UnblockOwnerRefs(o map[string]any) bool {
	refs, _ := unstructured.Metadata(o)["ownerReferences"].([]any)
	changed := false
	for _, r := range refs {
		if m, ok := r.(map[string]any); ok && m["blockOwnerDeletion"] == true {
			m["blockOwnerDeletion"] = false
			changed = true
		}
	}
	return changed
}

// RemoveFinalizer removes the finalizer fin from o, and the finalizers
// field with the last one.
func RemoveFinalizer(o map[string]any, fin string) bool {
	meta := unstructured.Metadata(o)
	fins, _ := meta["finalizers"].([]any)
	i := slices.Index(fins, any(fin))
	if i < 0 {
		return false
	}
	fins = slices.Delete(slices.Clone(fins), i, i+1)
	if len(fins) == 0 {
		delete(meta, "finalizers")
	} else {
		meta["finalizers"] = fins
	}
	return true
}
