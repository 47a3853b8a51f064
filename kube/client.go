// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strings"
)

// Client reads and writes objects on an API server. It is safe for
// concurrent use; make one per server and share it.
//
// Every call finds the resource path of the object's kind through discovery
// (cached; see [Client.Mapping]), waits for the client-side rate limit, and
// turns a failure the server reports into a [*StatusError] wrapped with the
// verb and the object ("get ConfigMap default/x: ...").
type Client struct {
	base         *url.URL
	http         *http.Client
	cfg          *Config
	limiter      *tokenBucket // nil when the rate limit is off
	dryRun       bool
	fieldManager string
	log          *slog.Logger
	mapper       *mapper
}

// ClientOptions refine a [Client].
type ClientOptions struct {
	// DryRun makes every write send dryRun=All: the server validates and
	// answers as if it wrote, but changes nothing.
	DryRun bool
	// FieldManager is sent with every write and is the default manager of
	// [Client.Apply]; empty leaves it to the server (for writes) and is an
	// error for Apply.
	FieldManager string
	// Logger receives retries and discovery refreshes at debug level; nil
	// discards them.
	Logger *slog.Logger
}

// Default client-side rate limit, as controller-runtime sets it.
const (
	DefaultQPS   = 20
	DefaultBurst = 30
)

// NewClient makes a client for cfg. It does no I/O and starts no goroutine:
// discovery happens on first use. cfg is copied.
func NewClient(cfg *Config, opts ClientOptions) (*Client, error) {
	if cfg == nil {
		return nil, errors.New("new client: config is nil")
	}
	// Errors here do not quote Host: a URL may carry a password.
	base, err := url.Parse(cfg.Host)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("new client: host is not a URL: %w", err)
	}
	if base.Scheme != "https" && base.Scheme != "http" || base.Host == "" {
		return nil, fmt.Errorf("new client: host %s: want https://host:port", base.Redacted())
	}
	base.Path = strings.TrimSuffix(base.Path, "/")
	hc, err := cfg.HTTPClient()
	if err != nil {
		return nil, fmt.Errorf("new client: %w", err)
	}
	c := &Client{
		base:         base,
		http:         hc,
		cfg:          cfg,
		dryRun:       opts.DryRun,
		fieldManager: opts.FieldManager,
		log:          opts.Logger,
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	switch qps, burst := cfg.QPS, cfg.Burst; {
	case qps < 0:
	case qps == 0:
		c.limiter = newTokenBucket(DefaultQPS, DefaultBurst)
	default:
		c.limiter = newTokenBucket(qps, max(burst, 1))
	}
	c.mapper = newMapper(c)
	return c, nil
}

// Namespace returns the default namespace of the configuration: the
// kubeconfig context's or the service account's, else "default".
func (c *Client) Namespace() string {
	if c.cfg.Namespace == "" {
		return "default"
	}
	return c.cfg.Namespace
}

// Get reads the object named by key into obj, whose kind picks the
// resource. obj is reset first, so no field survives from before.
func (c *Client) Get(ctx context.Context, key Key, obj Object) error {
	gvk := obj.GroupVersionKind()
	r, err := c.objectRequest(ctx, http.MethodGet, gvk, key, "")
	if err == nil {
		r.accept = acceptFor(obj)
		err = c.call(ctx, r, obj)
	}
	if err != nil {
		return fmt.Errorf("get %s %s: %w", gvk.Kind, key, err)
	}
	stampKind(obj, gvk)
	return nil
}

// List reads the objects of the list's item kind, in one request: with
// opts.Limit set that is one page, and the list's Continue names the next.
// See [ListAll] for every page.
func (c *Client) List(ctx context.Context, list ObjectList, opts ListOptions) error {
	gvk := list.ItemGroupVersionKind()
	if err := c.list(ctx, gvk, list, opts); err != nil {
		return fmt.Errorf("list %s: %w", gvk.Kind, err)
	}
	return nil
}

func (c *Client) list(ctx context.Context, gvk GroupVersionKind, list ObjectList, opts ListOptions) error {
	m, err := c.Mapping(ctx, gvk)
	if err != nil {
		return err
	}
	r := &request{method: http.MethodGet, path: c.collectionPath(m, opts.Namespace), query: opts.query(false), safe: true}
	if isMetadataList(list) {
		r.accept = acceptMetadataList
	}
	if err := c.call(ctx, r, list); err != nil {
		return err
	}
	if s, ok := list.(interface{ stampKinds(GroupVersionKind) }); ok {
		s.stampKinds(gvk)
	}
	return nil
}

// DefaultPageSize is the page size of [ListAll] when opts.Limit is zero.
const DefaultPageSize = 500

// ListAll reads every page of a paged list into list, asking opts.Limit
// (default [DefaultPageSize]) items at a time. The result is consistent: all
// pages come from the first page's resourceVersion. If the continue token
// expires between pages the call fails with an error [IsGone] reports.
func ListAll[T any](ctx context.Context, c *Client, list *List[T], opts ListOptions) error {
	if opts.Limit == 0 {
		opts.Limit = DefaultPageSize
	}
	gvk := list.ItemGroupVersionKind()
	var items []T
	for {
		if err := c.list(ctx, gvk, list, opts); err != nil {
			return fmt.Errorf("list %s: %w", gvk.Kind, err)
		}
		if items == nil && list.Continue == "" {
			return nil // one page: nothing to join
		}
		items = append(items, list.Items...)
		if list.Continue == "" {
			list.Items = items
			return nil
		}
		opts.Continue = list.Continue
	}
}

// Create creates obj and reads back what the server stored (uid,
// resourceVersion, defaults) into it.
func (c *Client) Create(ctx context.Context, obj Object) error {
	return c.write(ctx, "create", http.MethodPost, obj, "")
}

// Update replaces obj. The server refuses it with a Conflict ([IsConflict])
// when obj's resourceVersion is stale. Kinds with a status subresource
// ignore status changes here; see [Client.UpdateStatus].
func (c *Client) Update(ctx context.Context, obj Object) error {
	return c.write(ctx, "update", http.MethodPut, obj, "")
}

// UpdateStatus replaces obj's status through the status subresource.
func (c *Client) UpdateStatus(ctx context.Context, obj Object) error {
	return c.write(ctx, "update status of", http.MethodPut, obj, "status")
}

func (c *Client) write(ctx context.Context, verb, method string, obj Object, sub string) error {
	gvk := obj.GroupVersionKind()
	meta := obj.GetObjectMeta()
	key := meta.Key()
	if method == http.MethodPost {
		key.Name = "" // POST goes to the collection
	}
	err := c.checkIdentity(gvk, meta)
	var r *request
	if err == nil {
		r, err = c.objectRequest(ctx, method, gvk, key, sub)
	}
	if err == nil {
		if s, ok := obj.(interface{ SetGroupVersionKind(GroupVersionKind) }); ok {
			s.SetGroupVersionKind(gvk)
		}
		r.body, err = json.Marshal(obj)
		r.contentType = "application/json"
		r.accept = acceptFor(obj)
		c.writeQuery(r, "")
	}
	if err == nil {
		err = c.call(ctx, r, obj)
	}
	if err != nil {
		return fmt.Errorf("%s %s %s: %w", verb, gvk.Kind, describe(meta), err)
	}
	stampKind(obj, gvk)
	return nil
}

// Patch applies a patch to the object obj names and reads the result into
// obj. Only obj's kind, namespace and name are used to address it.
func (c *Client) Patch(ctx context.Context, obj Object, patch Patch) error {
	return c.patch(ctx, "patch", obj, patch, "", false)
}

// PatchStatus patches obj's status subresource.
func (c *Client) PatchStatus(ctx context.Context, obj Object, patch Patch) error {
	return c.patch(ctx, "patch status of", obj, patch, "status", false)
}

// Apply sends obj as a server-side apply configuration: the fields set in
// obj's JSON become owned by opts.FieldManager, the server creates the
// object if it does not exist, and the result is read back into obj.
// Declare apply types with omitempty on every optional field: a zero field
// that is encoded is a field you claim. obj's managedFields are not sent
// (the server refuses them), so an object read back can be applied again.
func (c *Client) Apply(ctx context.Context, obj Object, opts ApplyOptions) error {
	gvk := obj.GroupVersionKind()
	if s, ok := obj.(interface{ SetGroupVersionKind(GroupVersionKind) }); ok {
		s.SetGroupVersionKind(gvk)
	}
	// The server refuses an apply configuration that carries
	// managedFields; an object read back from an earlier apply does.
	meta := obj.GetObjectMeta()
	managed := meta.ManagedFields
	meta.ManagedFields = nil
	body, err := json.Marshal(obj)
	meta.ManagedFields = managed
	if err != nil {
		return fmt.Errorf("apply %s %s: %w", gvk.Kind, describe(obj.GetObjectMeta()), err)
	}
	manager := opts.FieldManager
	if manager == "" {
		manager = c.fieldManager
	}
	if manager == "" {
		return fmt.Errorf("apply %s %s: a field manager is required (ApplyOptions.FieldManager or ClientOptions.FieldManager)", gvk.Kind, describe(obj.GetObjectMeta()))
	}
	return c.patchAs(ctx, "apply", obj, Patch{Type: ApplyPatch, Data: body}, "", opts.Force, manager)
}

func (c *Client) patch(ctx context.Context, verb string, obj Object, patch Patch, sub string, force bool) error {
	return c.patchAs(ctx, verb, obj, patch, sub, force, "")
}

func (c *Client) patchAs(ctx context.Context, verb string, obj Object, patch Patch, sub string, force bool, manager string) error {
	gvk := obj.GroupVersionKind()
	meta := obj.GetObjectMeta()
	err := c.checkIdentity(gvk, meta)
	var r *request
	if err == nil {
		r, err = c.objectRequest(ctx, http.MethodPatch, gvk, meta.Key(), sub)
	}
	if err == nil {
		r.body, r.contentType, r.accept = patch.Data, string(patch.Type), acceptFor(obj)
		c.writeQuery(r, manager)
		if force {
			r.query.Set("force", "true")
		}
		err = c.call(ctx, r, obj)
	}
	if err != nil {
		return fmt.Errorf("%s %s %s: %w", verb, gvk.Kind, describe(meta), err)
	}
	stampKind(obj, gvk)
	return nil
}

// Delete deletes the object obj names. An object with finalizers is only
// marked for deletion (its deletionTimestamp set) until they are removed.
func (c *Client) Delete(ctx context.Context, obj Object, opts DeleteOptions) error {
	gvk := obj.GroupVersionKind()
	meta := obj.GetObjectMeta()
	r, err := c.objectRequest(ctx, http.MethodDelete, gvk, meta.Key(), "")
	if err == nil {
		err = c.sendDelete(ctx, r, opts)
	}
	if err != nil {
		return fmt.Errorf("delete %s %s: %w", gvk.Kind, describe(meta), err)
	}
	return nil
}

// DeleteAllOf deletes every object of kind gvk that opts select.
func (c *Client) DeleteAllOf(ctx context.Context, gvk GroupVersionKind, opts DeleteAllOfOptions) error {
	m, err := c.Mapping(ctx, gvk)
	if err == nil {
		lo := ListOptions{LabelSelector: opts.LabelSelector, FieldSelector: opts.FieldSelector}
		r := &request{method: http.MethodDelete, path: c.collectionPath(m, opts.Namespace), query: lo.query(false)}
		err = c.sendDelete(ctx, r, opts.DeleteOptions)
	}
	if err != nil {
		return fmt.Errorf("delete all of %s: %w", gvk.Kind, err)
	}
	return nil
}

func (c *Client) sendDelete(ctx context.Context, r *request, opts DeleteOptions) error {
	body := struct {
		TypeMeta
		DeleteOptions
		DryRun []string `json:"dryRun,omitempty"`
	}{TypeMeta: TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "DeleteOptions"}, DeleteOptions: opts}
	if c.dryRun {
		body.DryRun = []string{"All"}
	}
	var err error
	if r.body, err = json.Marshal(body); err != nil {
		return err
	}
	r.contentType = "application/json"
	return c.call(ctx, r, nil)
}

// writeQuery adds dryRun and fieldManager to a write.
func (c *Client) writeQuery(r *request, manager string) {
	if r.query == nil {
		r.query = url.Values{}
	}
	if c.dryRun {
		r.query.Set("dryRun", "All")
	}
	if manager == "" {
		manager = c.fieldManager
	}
	if manager != "" {
		r.query.Set("fieldManager", manager)
	}
}

// checkIdentity refuses objects whose kind the client cannot address.
func (c *Client) checkIdentity(gvk GroupVersionKind, meta *ObjectMeta) error {
	if gvk.Kind == "" || gvk.Version == "" {
		return errors.New("object has no apiVersion and kind")
	}
	if meta.Name == "" && meta.GenerateName == "" {
		return errors.New("object has no name")
	}
	return nil
}

// objectRequest builds the request for one object (key.Name set) or for
// its collection (key.Name empty, for create).
func (c *Client) objectRequest(ctx context.Context, method string, gvk GroupVersionKind, key Key, sub string) (*request, error) {
	m, err := c.Mapping(ctx, gvk)
	if err != nil {
		return nil, err
	}
	if m.Namespaced && key.Namespace == "" {
		return nil, fmt.Errorf("%s is namespaced: the object needs a namespace", gvk.Kind)
	}
	if !m.Namespaced {
		key.Namespace = ""
	}
	path := c.collectionPath(m, key.Namespace)
	if key.Name != "" {
		path += "/" + url.PathEscape(key.Name)
	} else if method != http.MethodPost {
		return nil, errors.New("object has no name")
	}
	if sub != "" {
		path += "/" + sub
	}
	return &request{method: method, path: path, safe: method == http.MethodGet}, nil
}

// collectionPath is /api/v1[/namespaces/NS]/RESOURCE or the /apis/G/V form.
func (c *Client) collectionPath(m Mapping, namespace string) string {
	var b strings.Builder
	if m.GVK.Group == "" {
		b.WriteString("/api/")
	} else {
		b.WriteString("/apis/")
		b.WriteString(m.GVK.Group)
		b.WriteByte('/')
	}
	b.WriteString(m.GVK.Version)
	if m.Namespaced && namespace != "" {
		b.WriteString("/namespaces/")
		b.WriteString(url.PathEscape(namespace))
	}
	b.WriteByte('/')
	b.WriteString(m.Resource)
	return b.String()
}

// Accept headers: the metadata projection, falling back to the full
// object for servers that lack it.
const (
	acceptMetadata     = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	acceptMetadataList = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
)

func acceptFor(obj Object) string {
	if _, ok := obj.(*PartialObjectMetadata); ok {
		return acceptMetadata
	}
	return ""
}

func isMetadataList(list ObjectList) bool {
	_, ok := list.(*List[PartialObjectMetadata])
	return ok
}

// stampKind writes gvk into obj's apiVersion and kind when the server's
// answer named another (the metadata projection answers with
// PartialObjectMetadata).
func stampKind(obj Object, gvk GroupVersionKind) {
	if p, ok := obj.(*PartialObjectMetadata); ok {
		p.SetGroupVersionKind(gvk)
	}
}

// resetObject sets the value out points to to its zero value, so that
// decoding into it leaves nothing from before (encoding/json merges maps).
func resetObject(out any) {
	v := reflect.ValueOf(out)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v.Elem().SetZero()
	}
}

// describe names an object in an error: namespace/name or generateName*.
func describe(m *ObjectMeta) string {
	k := m.Key()
	if k.Name == "" && m.GenerateName != "" {
		k.Name = m.GenerateName + "*"
	}
	return k.String()
}
