// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"io"
)

// Written is what the server answered to one write, as
// [ClientOptions.OnWrite] receives it: enough for a cache to tell when
// it holds the write (a manager's cache uses it so that a read after a
// write sees it; see package cache, "Reading your own writes").
type Written struct {
	// Kind is the kind written.
	Kind GroupVersionKind
	// Key names the object as the server stored it (the name a
	// generateName create was given).
	Key Key
	// ResourceVersion is the object's resourceVersion in the answer;
	// empty when the answer carried none (a delete answered with a
	// Status, as most kinds answer an immediate delete).
	ResourceVersion string
	// Delete is set for a delete: one of [Client.Delete], and one for
	// each object the answer of [Client.DeleteAllOf] lists. A delete
	// that waits on finalizers answers the object, marked with its
	// deletionTimestamp, at the resourceVersion of the mark.
	Delete bool
	// Gone is set, with Delete, for an update, patch or status write
	// after which the server deletes the object: it removed the last
	// finalizer of an object being deleted. Its answer is the object as
	// the write left it (a deletionTimestamp, no finalizers, no grace
	// period left: the server's rule for deleting during an update), at
	// the resourceVersion the object already had, and the object's
	// DELETED event comes later with a new one: the write is held once
	// the object is gone.
	Gone bool
	// Partial is set when the answer did not carry the object's
	// metadata (a subresource answered with another kind, such as a
	// Scale; a delete answered with a Status): Labels and Owners are
	// then unknown, not empty.
	Partial bool
	// Labels and Owners are the object's labels and owner references in
	// the answer (the object's own maps and slices: copy them to keep
	// them); nil for a subresource answered with another kind (a Scale).
	Labels map[string]string
	Owners []OwnerReference
}

// wrote reports a successful write whose answer was decoded into obj:
// the object, or the subresource's answer (a Scale names its object and
// carries its resourceVersion, but not its labels nor owners).
// Dry runs (the client's, or this write's: dryRun) change nothing and are
// not reported.
func (c *Client) wrote(gvk GroupVersionKind, obj Object, dryRun bool) {
	if c.onWrite == nil || c.dryRun || dryRun {
		return
	}
	m := obj.GetObjectMeta()
	if m.Name == "" {
		return // the answer of a subresource that is not an object (an eviction's Status)
	}
	gone := goneAfterUpdate(m)
	c.onWrite(Written{Kind: gvk, Key: m.Key(), ResourceVersion: m.ResourceVersion, Delete: gone, Gone: gone,
		Partial: obj.GroupVersionKind() != gvk, Labels: m.Labels, Owners: m.OwnerReferences})
}

// goneAfterUpdate reports whether the server deletes the object an update
// answered with m: marked for deletion, no finalizers left, and no grace
// period pending (a Pod deleted gracefully stays until its grace period
// ends, finalizers or not). It is the server's own rule
// (ShouldDeleteDuringUpdate), read from the answer: the answer's
// deletionTimestamp and grace period are the stored object's, which a
// write cannot change.
func goneAfterUpdate(m *ObjectMeta) bool {
	return m.DeletionTimestamp != nil && len(m.Finalizers) == 0 &&
		(m.DeletionGracePeriodSeconds == nil || *m.DeletionGracePeriodSeconds == 0)
}

// deleteAnswer is the part of a delete's answer that [Written] reports:
// a Status (nothing), the object, or for a collection a list of the
// objects deleted.
type deleteAnswer struct {
	Kind     string       `json:"kind"`
	Metadata answeredMeta `json:"metadata"`
	Items    []struct {
		Metadata answeredMeta `json:"metadata"`
	} `json:"items"`
}

type answeredMeta struct {
	Labels          map[string]string `json:"labels"`
	Namespace       string            `json:"namespace"`
	Name            string            `json:"name"`
	ResourceVersion string            `json:"resourceVersion"`
	OwnerReferences []OwnerReference  `json:"ownerReferences"`
}

// maxDeleteAnswer bounds what is read of a delete's answer for
// [Written]: a collection's answer lists every object deleted, and past
// this the deletes are not reported (the write itself succeeded).
const maxDeleteAnswer = 16 << 20

// sendDeleteAnswer sends a delete and reports what its answer says was
// deleted: key for a delete of one object ("" name for a collection).
func (c *Client) sendDeleteAnswer(ctx context.Context, r *request, gvk GroupVersionKind, key Key, dryRun bool) error {
	ctx, cancel := c.requestContext(ctx, r)
	defer cancel()
	resp, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if c.onWrite == nil || c.dryRun || dryRun {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
		return nil
	}
	body, whole, err := readLimited(resp.Body, maxDeleteAnswer)
	var a deleteAnswer
	if err != nil || !whole || c.dec.all.Unmarshal(body, &a) != nil {
		if key.Name != "" { // the delete succeeded; its version is unknown
			c.onWrite(Written{Kind: gvk, Key: key, Delete: true, Partial: true})
		}
		return nil
	}
	switch {
	case key.Name != "" && a.Kind == "Status":
		c.onWrite(Written{Kind: gvk, Key: key, Delete: true, Partial: true})
	case key.Name != "":
		c.onWrite(Written{Kind: gvk, Key: key, Delete: true, ResourceVersion: a.Metadata.ResourceVersion,
			Labels: a.Metadata.Labels, Owners: a.Metadata.OwnerReferences})
	default:
		for _, it := range a.Items {
			m := it.Metadata
			c.onWrite(Written{Kind: gvk, Key: Key{Namespace: m.Namespace, Name: m.Name}, Delete: true,
				ResourceVersion: m.ResourceVersion, Labels: m.Labels, Owners: m.OwnerReferences})
		}
	}
	return nil
}
