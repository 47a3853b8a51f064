// SPDX-License-Identifier: Apache-2.0

package admission

// Pin is what a create stores whatever object it is given: the steps of
// a write with webhooks create the same object (same uid), and the
// managedFields of a create that mutating webhooks changed are those of
// what the client sent, as on the real server (the webhooks' fields are
// nobody's). The zero value pins nothing.
type Pin struct {
	UID string // empty: a new uid
	// Managed says managedFields are pinned: to ManagedFields, or none
	// when it is nil.
	Managed       bool
	ManagedFields any
}

// Apply gives meta, the metadata of an object being created, what p
// pins.
func (p *Pin) Apply(meta map[string]any) {
	if p.UID != "" {
		meta["uid"] = p.UID
	}
	switch {
	case !p.Managed:
	case p.ManagedFields == nil:
		delete(meta, "managedFields")
	default:
		meta["managedFields"] = p.ManagedFields
	}
}
