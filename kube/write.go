// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// Create creates obj and reads back what the server stored (uid,
// resourceVersion, defaults) into it. opts refine this write alone (see
// [WriteOptions]), as they do for every write below. An object without
// a name or generateName is sent as it is: the server refuses it, but
// for the kinds that have none, the reviews, whose answer is read back
// the same way (a TokenReview's status, a SubjectAccessReview's).
func (c *Client) Create(ctx context.Context, obj Object, opts ...WriteOption) error {
	return c.write(ctx, "create", http.MethodPost, obj, "", obj, nil, WriteOptions{}, opts, nil)
}

// Update replaces the fields obj's Go type declares and keeps the rest:
// what the type leaves out is never erased. The server refuses it with a
// Conflict ([IsConflict]) when obj's resourceVersion is stale. Kinds with
// a status subresource ignore status changes here; see [Client.Status].
//
// The cost: unless obj's type holds everything ([Unstructured], and the
// kinds this package declares in full: [ConfigMap], [Secret], [Lease],
// [Scale]), Update first reads the object (one GET, which needs the get
// permission as well as update) and lays what obj's type encodes over
// it: the fields the type declares are taken from obj (one obj's
// encoding leaves out, a nil map with omitempty, is removed), every
// other field is kept as stored. A list of structs the type declares in
// part is written element by element where the stored elements line up
// (as many, with the same names in order); an update that adds, removes
// or reorders such elements, which would erase their undeclared fields,
// is refused with an [*UndeclaredFieldsError] naming them, and nothing
// is written. An Update without a resourceVersion is conditional on the
// version read: when another writer changes the object in between, it
// reads again (up to 5 times) rather than erase that writer's change.
// To write only what changed, without the read, use [Client.Patch]
// with [MergeFrom].
func (c *Client) Update(ctx context.Context, obj Object, opts ...WriteOption) error {
	return c.write(ctx, "update", http.MethodPut, obj, "", obj, nil, WriteOptions{}, opts, putKeeping)
}

// Replace writes obj whole (a PUT), as [Client.Update] does, without
// reading the object first: for a type that holds every field of its
// kind ([Unstructured], [ConfigMap], [Secret], [Lease], [Scale], or a
// type with its own MarshalJSON), whose write erases nothing. Any other
// type is refused with an error, and nothing is sent: use Update. A
// program that replaces and never updates does not link Update's read
// and merge (about 25 kB of a binary); leader election replaces its
// Lease.
func (c *Client) Replace(ctx context.Context, obj Object, opts ...WriteOption) error {
	return c.write(ctx, "replace", http.MethodPut, obj, "", obj, nil, WriteOptions{}, opts, putWhole)
}

// Status returns the writer of the status subresource, so that status
// writes read as they do with controller-runtime, and the same on every
// client of this module: c.Status().Update(ctx, obj),
// c.Status().Patch(ctx, obj, patch), c.Status().Apply(ctx, obj, opts...).
// It costs nothing (no allocation). Other subresources have
// [Client.SubResource].
func (c *Client) Status() StatusWriter { return StatusWriter{c: c} }

// StatusWriter writes the status subresource (…/status) of objects: the
// server takes the status from what is sent and leaves the rest (spec,
// metadata but for resourceVersion) as stored, and the generation does
// not change. Get one from [Client.Status]. A kind without a status
// subresource answers NotFound.
type StatusWriter struct {
	c *Client
}

// Update replaces obj's status and reads back what the server stored.
// A stale resourceVersion fails with a Conflict ([IsConflict]). As
// [Client.Update] does, it keeps the status fields obj's type does not
// declare, at the same cost (a GET of the object first).
func (s StatusWriter) Update(ctx context.Context, obj Object, opts ...WriteOption) error {
	return s.c.write(ctx, "update status of", http.MethodPut, obj, "status", obj, nil, WriteOptions{}, opts, putKeeping)
}

// Patch patches obj's status and reads the result into obj (see
// [Client.Patch]). With a patch made by [MergeFrom], only the status
// fields obj changed are sent: c.Status().Patch(ctx, obj,
// kube.MergeFrom(original)) does not Conflict, and does not undo
// another writer's change to a field it left alone, however stale the
// original.
func (s StatusWriter) Patch(ctx context.Context, obj Object, patch Patch, opts ...WriteOption) error {
	return s.c.write(ctx, "patch status of", http.MethodPatch, obj, "status", obj, &patch, WriteOptions{}, opts, nil)
}

// Apply applies obj's status as a server-side apply configuration (see
// [Client.Apply]); [ForceOwnership] takes the fields other managers own.
func (s StatusWriter) Apply(ctx context.Context, obj Object, opts ...WriteOption) error {
	return s.c.apply(ctx, "apply status of", obj, "status", obj, opts)
}

// write sends a write of out (obj itself, or the body of obj's
// subresource sub) to obj's path with method: out's JSON, or the
// document patch makes of it, with the options o, then opts, make; and
// reads the answer into out. put, when not nil, sends the request in
// place of call (a PUT's: putKeeping, putWhole), so that a program links
// only the ones it uses. Every write but a delete goes through here.
func (c *Client) write(ctx context.Context, verb, method string, obj Object, sub string, out Object,
	patch *Patch, o WriteOptions, opts []WriteOption, put putFunc) error {
	if err := c.check(obj); err != nil { // out is obj, or a subresource body the caller passed
		return err
	}
	for _, opt := range opts {
		opt.ApplyToWrite(&o)
	}
	gvk := obj.GroupVersionKind()
	meta := obj.GetObjectMeta()
	key := meta.Key()
	if method == http.MethodPost && sub == "" {
		key.Name = "" // POST goes to the collection
	}
	ogvk := out.GroupVersionKind()
	err := c.checkIdentity(gvk, meta, method == http.MethodPost && sub == "")
	var body []byte
	contentType := "application/json"
	switch {
	case err == nil && patch != nil:
		body, err = patch.DataFor(out)
		contentType = string(patch.Type)
	case err == nil:
		if s, ok := out.(interface{ SetGroupVersionKind(GroupVersionKind) }); ok {
			s.SetGroupVersionKind(ogvk)
		}
		body, err = json.Marshal(out)
	}
	var r *request
	if err == nil {
		r, err = c.objectRequest(ctx, method, gvk, key, sub)
	}
	if err == nil {
		r.body, r.contentType, r.accept = body, contentType, acceptFor(out)
		c.writeQuery(r, &o)
		if put != nil {
			err = put(ctx, c, r, gvk, key, sub, out)
		} else {
			err = c.call(ctx, r, out)
		}
	}
	if err != nil {
		return fmt.Errorf("%s %s %s: %w", verb, gvk.Kind, describe(meta), err)
	}
	stampKind(out, ogvk)
	c.wrote(gvk, out, o.DryRun)
	return nil
}

// Patch applies a patch to the object obj names and reads the result into
// obj. Only obj's kind, namespace and name are used to address it, but
// for a patch made by [MergeFrom], whose document is the diff from the
// original to obj.
func (c *Client) Patch(ctx context.Context, obj Object, patch Patch, opts ...WriteOption) error {
	return c.write(ctx, "patch", http.MethodPatch, obj, "", obj, &patch, WriteOptions{}, opts, nil)
}

// Apply sends obj as a server-side apply configuration: the fields set in
// obj's JSON become owned by the field manager, the server creates the
// object if it does not exist, and the result is read back into obj.
// A field manager is required: [FieldOwner] (or
// [ApplyOptions.FieldManager]), else [ClientOptions.FieldManager].
// [ForceOwnership] takes the fields other managers own instead of
// failing with a Conflict.
// Declare apply types with omitempty on every optional field: a zero field
// that is encoded is a field you claim. obj's managedFields are not sent
// (the server refuses them), so an object read back can be applied again.
// The other fields of opts refine the write as they do any other.
func (c *Client) Apply(ctx context.Context, obj Object, opts ...WriteOption) error {
	return c.apply(ctx, "apply", obj, "", obj, opts)
}

// apply sends out (obj itself, or the body of obj's subresource sub) as
// an apply configuration to obj's path.
func (c *Client) apply(ctx context.Context, verb string, obj Object, sub string, out Object, opts []WriteOption) error {
	if err := c.check(obj); err != nil { // out is obj, or a subresource body the caller passed
		return err
	}
	var o WriteOptions
	for _, opt := range opts {
		opt.ApplyToWrite(&o)
	}
	gvk := out.GroupVersionKind()
	if s, ok := out.(interface{ SetGroupVersionKind(GroupVersionKind) }); ok {
		s.SetGroupVersionKind(gvk)
	}
	// The server refuses an apply configuration that carries
	// managedFields; an object read back from an earlier apply does.
	meta := out.GetObjectMeta()
	managed := meta.ManagedFields
	meta.ManagedFields = nil
	body, err := json.Marshal(out)
	meta.ManagedFields = managed
	if err == nil && o.FieldManager == "" && c.fieldManager == "" {
		err = errors.New("a field manager is required (FieldOwner, ApplyOptions.FieldManager or ClientOptions.FieldManager)")
	}
	if err != nil {
		return fmt.Errorf("%s %s %s: %w", verb, obj.GroupVersionKind().Kind, describe(obj.GetObjectMeta()), err)
	}
	return c.write(ctx, verb, http.MethodPatch, obj, sub, out, &Patch{Type: ApplyPatch, Data: body}, o, nil, nil)
}

// Delete deletes the object obj names. An object with finalizers is only
// marked for deletion (its deletionTimestamp set) until they are removed.
// opts refine the delete (see [DeleteOption]); none is the server's
// defaults.
func (c *Client) Delete(ctx context.Context, obj Object, opts ...DeleteOption) error {
	if err := c.check(obj); err != nil {
		return err
	}
	var o DeleteOptions
	for _, opt := range opts {
		opt.ApplyToDelete(&o)
	}
	gvk := obj.GroupVersionKind()
	meta := obj.GetObjectMeta()
	r, err := c.objectRequest(ctx, http.MethodDelete, gvk, meta.Key(), "")
	if err == nil {
		err = c.sendDelete(ctx, r, o, gvk, meta.Key())
	}
	if err != nil {
		return fmt.Errorf("delete %s %s: %w", gvk.Kind, describe(meta), err)
	}
	return nil
}

// DeleteAllOf deletes every object of kind gvk that opts select (see
// [DeleteAllOfOption]): with none, every object of the kind in every
// namespace.
func (c *Client) DeleteAllOf(ctx context.Context, gvk GroupVersionKind, opts ...DeleteAllOfOption) error {
	var o DeleteAllOfOptions
	for _, opt := range opts {
		opt.ApplyToDeleteAllOf(&o)
	}
	m, err := c.Mapping(ctx, gvk)
	if err == nil {
		lo := ListOptions{LabelSelector: o.LabelSelector, FieldSelector: o.FieldSelector}
		r := &request{method: http.MethodDelete, path: c.collectionPath(m, o.Namespace), query: lo.query(false)}
		err = c.sendDelete(ctx, r, o.DeleteOptions, gvk, Key{})
	}
	if err != nil {
		return fmt.Errorf("delete all of %s: %w", gvk.Kind, err)
	}
	return nil
}

// sendDelete sends a delete of the object at key (of a collection when
// key's name is empty) and reports it to OnWrite.
func (c *Client) sendDelete(ctx context.Context, r *request, opts DeleteOptions, gvk GroupVersionKind, key Key) error {
	// apiVersion and kind are fields, not an embedded TypeMeta, whose
	// promoted methods would give this type two wrappers every program
	// that deletes links (about 700 bytes).
	body := struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		DeleteOptions
		DryRun []string `json:"dryRun,omitempty"`
	}{APIVersion: "meta.k8s.io/v1", Kind: "DeleteOptions", DeleteOptions: opts}
	if c.dryRun || opts.DryRun {
		body.DryRun = []string{"All"}
	}
	var err error
	if r.body, err = json.Marshal(body); err != nil {
		return err
	}
	r.contentType = "application/json"
	return c.sendDeleteAnswer(ctx, r, gvk, key, opts.DryRun)
}

// writeQuery adds the write's options to r, the client's where o leaves
// them zero.
func (c *Client) writeQuery(r *request, o *WriteOptions) {
	if r.query == nil {
		r.query = url.Values{}
	}
	manager := o.FieldManager
	if manager == "" {
		manager = c.fieldManager
	}
	dryRun := ""
	if c.dryRun || o.DryRun {
		dryRun = "All"
	}
	// A table and one loop: each url.Values.Set is inlined (see query).
	for _, p := range [...]struct{ key, value string }{
		{"dryRun", dryRun},
		{"fieldManager", manager},
		{"fieldValidation", string(o.FieldValidation)},
		{"force", flag(o.Force)},
	} {
		if p.value != "" {
			r.query[p.key] = []string{p.value}
		}
	}
	r.warnings = o.Warnings
}

// checkIdentity refuses objects whose kind the client cannot address,
// and objects without a name but for a create: the server refuses a
// nameless create itself (422, naming metadata.name), but of the kinds
// whose objects have no name, the reviews (TokenReview,
// SubjectAccessReview, ...), which must come without one.
func (c *Client) checkIdentity(gvk GroupVersionKind, meta *ObjectMeta, create bool) error {
	if gvk.Kind == "" || gvk.Version == "" {
		return errors.New("object has no apiVersion and kind")
	}
	if !create && meta.Name == "" && meta.GenerateName == "" {
		return errors.New("object has no name")
	}
	return nil
}
