// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
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
	// maxObjectSize is ClientOptions.MaxObjectSize; see maxObject.
	maxObjectSize int
	// maxListSize is ClientOptions.MaxListSize; see maxList.
	maxListSize int64
	// onWrite is ClientOptions.OnWrite; nil reports nothing.
	onWrite func(Written)
	// dec decodes answers, list items and watch events (see unmarshal).
	dec decoders
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
	// Logger receives retries and discovery refreshes at debug level, and
	// the server's warnings (Warning headers) at warn level unless a
	// write collects them ([WriteOptions.Warnings]); nil discards them.
	Logger *slog.Logger
	// MaxObjectSize bounds the JSON of one object the client reads, in
	// bytes: the answer of a Get or a write, a list item, the object of a
	// watch event. A larger one fails the read with an error that wraps
	// [ErrObjectTooLarge] and names the object, having read little more
	// than the limit; the memory a read takes is a few times the limit at
	// most, whatever the server sends. Zero means [DefaultMaxObjectSize],
	// enough for any object the API server can store with etcd's default
	// request limit; raise it for a server whose etcd has a larger
	// --max-request-bytes.
	MaxObjectSize int
	// MaxListSize bounds the bytes the client reads of one list's answer:
	// a List, one ListEach request (one page with ListOptions.Limit), the
	// initial events of a WatchList watch. A larger answer fails the read
	// with an error that wraps [ErrListTooLarge] and names the kind and
	// the bytes read; an informer logs it and tries again after its
	// backoff. Zero means [DefaultMaxListSize] (1 GiB).
	MaxListSize int64
	// OnWrite, when set, is called after each write the server accepted
	// (create, update, patch, apply, delete, their status forms, and each
	// object a delete of a collection lists), with what the server
	// answered, on the goroutine of the write and before the write
	// returns. Dry runs are not reported. It must be quick and must not
	// call the client. A manager sets it so that its cache can wait for
	// its own writes.
	OnWrite func(Written)
}

// NewClient makes a client for cfg. It opens no connection and starts no
// goroutine: discovery happens on first use. It reads the CA and client
// certificate files cfg names, once, so that a wrong path or a bad PEM
// fails here rather than at the first request (a later change of the
// files is read again on use). cfg is copied.
func NewClient(cfg *Config, opts ClientOptions) (*Client, error) {
	if cfg == nil {
		return nil, errors.New("new client: config is nil")
	}
	// Errors here quote Host with its user info redacted: it may carry a
	// password.
	base, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("new client: parse host %q: %w", redactURL(cfg.Host), urlParseReason(cfg.Host, err))
	}
	if base.Scheme != "https" && base.Scheme != "http" || base.Host == "" {
		return nil, fmt.Errorf("new client: host %q: want https://host:port", redactURL(cfg.Host))
	}
	base.Path = strings.TrimSuffix(base.Path, "/")
	hc, err := cfg.HTTPClient()
	if err != nil {
		return nil, fmt.Errorf("new client: %w", err)
	}
	c := &Client{
		base:          base,
		http:          hc,
		cfg:           cfg,
		dryRun:        opts.DryRun,
		fieldManager:  opts.FieldManager,
		log:           opts.Logger,
		maxObjectSize: opts.MaxObjectSize,
		maxListSize:   opts.MaxListSize,
		onWrite:       opts.OnWrite,
		dec:           newDecoders(),
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if cfg.QPS > 0 {
		c.limiter = newTokenBucket(cfg.QPS, max(cfg.Burst, 1))
	}
	c.mapper = newMapper(c)
	return c, nil
}

// Namespace returns the default namespace of the configuration: the
// kubeconfig context's or the service account's, else "default".
func (c *Client) Namespace() string {
	if c == nil || c.cfg == nil || c.cfg.Namespace == "" {
		return "default"
	}
	return c.cfg.Namespace
}

// Get reads the object named by key into obj, whose kind picks the
// resource. obj is reset first, so no field survives from before.
func (c *Client) Get(ctx context.Context, key Key, obj Object) error {
	if err := c.check(obj); err != nil {
		return err
	}
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
// See [ListAll] for every page. A [List] is decoded item by item as the
// answer streams in, each item bounded by [ClientOptions.MaxObjectSize];
// the answer as a whole may take at most [ClientOptions.MaxListSize]
// (1 GiB by default; read larger lists in pages). opts are applied in order (see
// [NewListOptions]): a [ListOptions] struct is one, and so are
// [InNamespace], [MatchingLabels], [MatchingFields] and the others.
func (c *Client) List(ctx context.Context, list ObjectList, opts ...ListOption) error {
	if err := c.check(list); err != nil {
		return err
	}
	gvk := list.ItemGroupVersionKind()
	if err := c.list(ctx, gvk, list, NewListOptions(opts...)); err != nil {
		return fmt.Errorf("list %s: %w", gvk.Kind, err)
	}
	return nil
}

func (c *Client) list(ctx context.Context, gvk GroupVersionKind, list ObjectList, opts ListOptions) error {
	r, err := c.listRequest(ctx, gvk, opts, opts.MetadataOnly || isMetadataList(list))
	if err != nil {
		return err
	}
	if l, ok := list.(streamedList); ok {
		resetObject(list)
		err = c.readList(ctx, r, c.maxList(), l.decoding(c.decoder(opts)))
	} else {
		r.maxBody, r.list = int(min(c.maxList(), math.MaxInt)), true
		err = c.call(ctx, r, list)
	}
	if err != nil {
		return err
	}
	if s, ok := list.(interface{ stampKinds(GroupVersionKind) }); ok {
		s.stampKinds(gvk)
	}
	return nil
}

// listRequest is the request of a list of kind gvk; metadataOnly asks for
// the metadata projection.
func (c *Client) listRequest(ctx context.Context, gvk GroupVersionKind, opts ListOptions, metadataOnly bool) (*request, error) {
	m, err := c.Mapping(ctx, gvk)
	if err != nil {
		return nil, err
	}
	r := &request{method: http.MethodGet, path: c.collectionPath(m, opts.Namespace), query: opts.query(false), safe: true}
	if metadataOnly {
		r.accept = acceptMetadataList
	}
	return r, nil
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
