// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"github.com/kubeloop/kubeloop/internal/errs"
	"reflect"

	"github.com/kubeloop/kubeloop/internal/deepcopy"
	"github.com/kubeloop/kubeloop/kube"
)

// Informer keeps an up-to-date, indexed cache of the objects of one kind
// and tells handlers about their changes. T is the stored type, for
// example kube.ConfigMap, your own struct, [kube.Unstructured] or
// [kube.PartialObjectMetadata] (metadata only); *T must implement
// [kube.Object].
//
// Reads from the store (Get, List) return deep copies the caller owns;
// [Informer.ReadOnly] reads without copying. A compact informer (see
// [InformerOptions.Compact]) decodes a new object for every read instead.
// Reads do not wait for the informer to sync: before it has, they see an
// empty store.
type Informer[T any] struct {
	inf  *informer
	copy func(dst, src *T)
}

// NewInformer makes an informer. It does no I/O and starts nothing; call
// [Informer.Start]. It fails when *T does not implement [kube.Object],
// when the kind is unknown (T is Unstructured or PartialObjectMetadata
// and opts.Kind is empty) or disagrees with T's, or when client is nil.
func NewInformer[T any](client *kube.Client, opts InformerOptions) (*Informer[T], error) {
	gvk, err := kindOf(reflect.TypeFor[T](), opts.Kind)
	if err != nil {
		return nil, errs.Errorf("new informer: %w", err)
	}
	inf, err := newInformer(client, gvk, func() kube.Object { return any(new(T)).(kube.Object) }, opts)
	if err != nil {
		return nil, err
	}
	return &Informer[T]{inf: inf, copy: deepcopy.For[T]()}, nil
}

// kindOf returns the kind objects of type t are: their own, if their
// GroupVersionKind method names one, else given.
func kindOf(t reflect.Type, given kube.GroupVersionKind) (kube.GroupVersionKind, error) {
	obj, ok := reflect.New(t).Interface().(kube.Object)
	if !ok {
		return kube.GroupVersionKind{}, errs.Errorf("*%s does not implement kube.Object", t)
	}
	own := obj.GroupVersionKind()
	switch {
	case own.Kind == "":
		return given, nil
	case given != (kube.GroupVersionKind{}) && given != own:
		return kube.GroupVersionKind{}, errs.Errorf("kind %q given for *%s, whose kind is %q", given, t, own)
	}
	return own, nil
}

// Start runs the informer until ctx is done, then waits for every
// goroutine it started (the reflector, resyncs, handler deliveries). It
// returns an error only when called twice.
func (i *Informer[T]) Start(ctx context.Context) error {
	if i == nil || i.inf == nil {
		return errNoInformer
	}
	return i.inf.Start(ctx)
}

// AddEventHandler registers h. It may be called before or after Start: a
// handler added after the informer synced first gets OnAdd(obj, true) for
// every cached object. It fails once Start has returned.
func (i *Informer[T]) AddEventHandler(h Handler[*T]) (*Registration, error) {
	if i == nil || i.inf == nil {
		return nil, errNoInformer
	}
	if h == nil {
		return i.inf.AddEventHandler(nil)
	}
	return i.inf.AddEventHandler(objectHandler[T]{h})
}

// RemoveEventHandler stops deliveries to the handler of r.
func (i *Informer[T]) RemoveEventHandler(r *Registration) error {
	if i == nil || i.inf == nil {
		return errNoInformer
	}
	return i.inf.RemoveEventHandler(r)
}

// AddIndex registers an index under the name field: List answers the
// field selector "field=value" with the objects for which fn returns
// value. fn must be a pure function of the object. It may be called at
// any time; the cost is one call of fn per cached object.
func (i *Informer[T]) AddIndex(field string, fn func(obj *T) []string) error {
	if i == nil || i.inf == nil {
		return errNoInformer
	}
	if fn == nil {
		return i.inf.store.addIndex(field, nil)
	}
	return i.inf.store.addIndex(field, func(obj kube.Object) []string { return fn(typed[T](obj)) })
}

// HasSynced reports whether the first state is stored and has been
// delivered to the handlers registered before that.
func (i *Informer[T]) HasSynced() bool {
	if i == nil || i.inf == nil {
		return false
	}
	return i.inf.HasSynced()
}

// WaitForSync waits until HasSynced or ctx is done; the error is then a
// [*NotSyncedError].
func (i *Informer[T]) WaitForSync(ctx context.Context) error {
	if i == nil || i.inf == nil {
		return errNoInformer
	}
	return i.inf.WaitForSync(ctx)
}

// AddShard adds the shard of sel to a sharded informer (see
// [InformerOptions.Sharded]) and, once it runs, lists and watches the
// shard's objects into the store: one list (or WatchList) and watch of
// the shard alone on a server that filters by shard; on one that does
// not, a read of the kind shared with the shards added about the same
// time. Adding a shard held already changes nothing. Handlers get
// OnAdd(obj, true) for the shard's objects.
func (i *Informer[T]) AddShard(sel kube.ShardSelector) error {
	if i == nil || i.inf == nil {
		return errNoInformer
	}
	return i.inf.AddShard(sel)
}

// RemoveShard stops the list and watch of the shard of sel (on a server
// that filters by shard), waits for it to end, and drops the shard's objects from the store, returning how
// many. Handlers are told nothing: the objects were not deleted on the
// server, and a sharded controller must not reconcile them as deletions.
func (i *Informer[T]) RemoveShard(sel kube.ShardSelector) (int, error) {
	if i == nil || i.inf == nil {
		return 0, errNoInformer
	}
	return i.inf.RemoveShard(sel)
}

// WaitForShard waits until the first state of the shard of sel is in the
// store; it fails when ctx ends first (with a [*NotSyncedError]) or the
// shard is removed.
func (i *Informer[T]) WaitForShard(ctx context.Context, sel kube.ShardSelector) error {
	if i == nil || i.inf == nil {
		return errNoInformer
	}
	return i.inf.WaitForShard(ctx, sel)
}

// ShardKeys returns the keys of the stored objects of the shard of sel,
// in no order. The cost is O(objects of the shard).
func (i *Informer[T]) ShardKeys(sel kube.ShardSelector) ([]kube.Key, error) {
	if i == nil || i.inf == nil {
		return nil, errNoInformer
	}
	return i.inf.ShardKeys(sel)
}

// ShardOf returns the selector of the shard that holds the stored object
// at k, and false when none does.
func (i *Informer[T]) ShardOf(k kube.Key) (kube.ShardSelector, bool) {
	if i == nil || i.inf == nil {
		return kube.ShardSelector{}, false
	}
	return i.inf.ShardOf(k)
}

// ObjectInformer returns the informer as an [ObjectInformer], for code
// that handles many kinds.
func (i *Informer[T]) ObjectInformer() ObjectInformer {
	if i == nil || i.inf == nil {
		return nil
	}
	return i.inf
}

// Stats returns the informer's counters.
func (i *Informer[T]) Stats() Stats {
	if i == nil || i.inf == nil {
		return Stats{}
	}
	return i.inf.stats()
}

// Get returns a deep copy of the object at key.
func (i *Informer[T]) Get(key kube.Key) (*T, bool) {
	if i == nil || i.inf == nil {
		return nil, false
	}
	obj, ok := i.ReadOnly().Get(key)
	if !ok {
		return nil, false
	}
	out := new(T)
	i.copy(out, obj)
	return out, true
}

// List returns deep copies of the objects opts select, in no particular
// order. See [ReadOnly.List] for the options it supports.
func (i *Informer[T]) List(opts kube.ListOptions) ([]*T, error) {
	if i == nil || i.inf == nil {
		return nil, errNoInformer
	}
	objs, err := i.ReadOnly().List(opts)
	for j, obj := range objs {
		out := new(T)
		i.copy(out, obj)
		objs[j] = out
	}
	return objs, err
}

// ReadOnly returns the zero-copy view of the store.
func (i *Informer[T]) ReadOnly() ReadOnly[T] {
	if i == nil || i.inf == nil {
		return ReadOnly[T]{}
	}
	return ReadOnly[T]{inf: i.inf}
}

// ReadOnly reads an informer's store without copying, for hot loops: the
// objects returned are the store's own, shared with every reader and
// handler, and must not be modified (the cache never modifies them either:
// a change replaces the stored object, so an object read stays a
// consistent, if stale, snapshot). A compact informer decodes each object
// read (see [InformerOptions.Compact]), so ReadOnly saves nothing there.
type ReadOnly[T any] struct {
	inf *informer
}

// Get returns the stored object at key.
func (r ReadOnly[T]) Get(key kube.Key) (*T, bool) {
	if r.inf == nil {
		return nil, false
	}
	obj, ok := r.inf.store.get(key)
	if !ok {
		return nil, false
	}
	return typed[T](obj), true
}

// List returns the stored objects opts select, in no particular order:
// opts.Namespace, opts.LabelSelector, and opts.FieldSelector terms
// "field=value" on fields with an index (see [Informer.AddIndex]) or on
// metadata.name and metadata.namespace ("!=" only on those two).
// opts.Limit caps the number returned; opts.Continue is refused, and so is
// a namespace outside the informer's. The slice is the caller's; the
// objects are not.
func (r ReadOnly[T]) List(opts kube.ListOptions) ([]*T, error) {
	if r.inf == nil {
		return nil, errNoInformer
	}
	var out []*T
	err := r.inf.list(opts, func(obj kube.Object) { out = append(out, typed[T](obj)) })
	return out, err
}

// ObjectInformer is an informer of any kind, seen through [kube.Object]
// (controller-runtime's cache.Informer): what code that handles many kinds
// (the [Cache], a controller's sources) holds. Get one from
// [Informer.ObjectInformer] or [Cache.GetInformer].
type ObjectInformer interface {
	// Kind is the kind the informer watches.
	Kind() kube.GroupVersionKind
	// AddEventHandler registers h; see [Informer.AddEventHandler].
	AddEventHandler(h Handler[kube.Object]) (*Registration, error)
	// RemoveEventHandler stops deliveries to the handler of r.
	RemoveEventHandler(r *Registration) error
	// HasSynced reports whether the first state is stored and has been
	// delivered to the handlers registered before that.
	HasSynced() bool
	// WaitForSync waits until HasSynced or ctx is done; the error is then
	// a [*NotSyncedError].
	WaitForSync(ctx context.Context) error
}

var _ ObjectInformer = (*informer)(nil)

// Stats are an informer's counters at one moment, for metrics.
type Stats struct {
	Kind kube.GroupVersionKind
	// Namespaces are the namespaces the informer is limited to; empty for
	// all.
	Namespaces []string
	// Objects is the number of objects cached.
	Objects int
	// Bytes approximates the memory they take: the size of the JSON they
	// were decoded from (estimated for metadata-only lists), or for a
	// compact informer the size of the JSON it keeps. The Go objects are
	// usually smaller, having dropped the fields their type does not
	// declare.
	Bytes int64
	// Synced is HasSynced.
	Synced bool
	// ListRequests counts list pages asked for; WatchRequests counts
	// watches opened; Relists counts full reads of the state after the
	// first (after a 410, or a broken WatchList); Events counts the
	// objects received in watch events (those ShardDropped counts aside).
	ListRequests, WatchRequests, Relists, Events uint64
	// ShardDropped counts the objects outside
	// [InformerOptions.ShardSelector] that the server sent anyway (it
	// ignores the selector) and the informer dropped; 0 when the server
	// filters.
	ShardDropped uint64
	// LastResourceVersion is the last resourceVersion the informer read
	// (an event's, a bookmark's, a list's): how far it has followed the
	// server's history.
	LastResourceVersion string
	// Fresh counts the reads that waited for this process's own writes.
	Fresh FreshStats
	// Handlers is the number of registered handlers; Queued the
	// notifications waiting for them; PeakQueued the longest one
	// handler's queue has been.
	Handlers, Queued, PeakQueued int
}
