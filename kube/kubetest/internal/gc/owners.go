// SPDX-License-Identifier: Apache-2.0

package gc

import "github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"

// ParseOwners reads metadata.ownerReferences; nil when there are none.
// Entries that are not objects are skipped.
func ParseOwners(meta map[string]any) []Owner {
	refs, _ := meta["ownerReferences"].([]any)
	if len(refs) == 0 {
		return nil
	}
	out := make([]Owner, 0, len(refs))
	for _, r := range refs {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		block, _ := m["blockOwnerDeletion"].(bool)
		out = append(out, Owner{APIVersion: unstructured.String(m, "apiVersion"), Kind: unstructured.String(m, "kind"),
			Name: unstructured.String(m, "name"), UID: unstructured.String(m, "uid"), Block: block})
	}
	return out
}

// OwnerUIDs are the uids of refs.
func OwnerUIDs(refs []Owner) []string {
	out := make([]string, len(refs))
	for i, o := range refs {
		out[i] = o.UID
	}
	return out
}
