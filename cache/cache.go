// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"cmp"
	"context"
	"errors"
	"github.com/kubeloop/kubeloop/internal/errs"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubeloop/kubeloop/internal/deepcopy"
	"github.com/kubeloop/kubeloop/kube"
)

// Options configure a [Cache]. The zero value caches every kind it is
// asked for, in every namespace.
type Options struct {
	// Namespaces limits the namespaced kinds to these namespaces; empty
	// means all. A kind's own ByObject.Namespaces win.
	Namespaces []string
	// ByObject declares kinds up front, with their own scoping, as
	// controller-runtime's cache.Options.ByObject; their informers start
	// with the cache. Other kinds get an informer on first use (unless
	// ReaderFailOnMissingInformer).
	ByObject []ByObject
	// ReaderFailOnMissingInformer makes reads of kinds not in ByObject
	// fail with [ErrNotAllowed] instead of starting an informer for them
	// (controller-runtime's option of that name).
	ReaderFailOnMissingInformer bool
	// DefaultTransform is applied to the objects of every kind without a
	// Transform of its own (ByObject.Transform).
	DefaultTransform func(obj kube.Object)
	// KeepManagedFields keeps metadata.managedFields in the objects of
	// every kind, which are otherwise decoded without them; see
	// [InformerOptions.KeepManagedFields].
	KeepManagedFields bool
	// SyncPeriod is the resync period of every informer; see
	// [InformerOptions.SyncPeriod] (zero means [DefaultSyncPeriod], 10h).
	SyncPeriod time.Duration
	// WatchList and PageSize apply to every informer; see
	// [InformerOptions].
	WatchList bool
	PageSize  int64
	// Compact stores the objects of every kind as JSON; see
	// [InformerOptions.Compact].
	Compact bool
	// WatchErrorHandler, when set, is every informer's; see
	// [InformerOptions.WatchErrorHandler].
	WatchErrorHandler WatchErrorHandler
	// Logger receives the informers' logs; nil discards them.
	Logger *slog.Logger
	// MaxFreshWait bounds how long a read waits for the cache to hold
	// this process's own writes (see "Reading your own writes" in the
	// package doc). Zero means [DefaultMaxFreshWait]; negative turns the
	// waits off, and with them the record of writes.
	MaxFreshWait time.Duration
	// MaxFreshRecords and MaxFreshRecordBytes bound what the cache
	// remembers of its client's writes for those waits: past either,
	// the oldest records are dropped (counted in [Cache.FreshRecords],
	// logged once) and reads no longer wait for them. Zero means
	// [DefaultMaxFreshRecords] (10,000) and [DefaultMaxFreshRecordBytes]
	// (8 MiB).
	MaxFreshRecords     int
	MaxFreshRecordBytes int64
}

// ByObject scopes the cache of one kind (controller-runtime's
// cache.ByObject).
type ByObject struct {
	// Object names the kind: a typed object (&kube.ConfigMap{}), or a
	// kube.Unstructured or kube.PartialObjectMetadata with apiVersion and
	// kind set. The options apply to every Go type the kind is read as.
	Object kube.Object
	// Namespaces, when set, replaces Options.Namespaces for this kind.
	Namespaces []string
	// LabelSelector and FieldSelector limit the objects cached.
	LabelSelector kube.Selector
	FieldSelector kube.FieldSelector
	// ShardSelector limits the objects cached to a shard of the kind; see
	// [InformerOptions.ShardSelector].
	ShardSelector kube.ShardSelector
	// Transform, when set, replaces Options.DefaultTransform for this
	// kind.
	Transform func(obj kube.Object)
	// Compact stores this kind's objects as JSON (as Options.Compact does
	// for every kind); see [InformerOptions.Compact].
	Compact bool
	// KeepManagedFields keeps this kind's metadata.managedFields (as
	// Options.KeepManagedFields does for every kind).
	KeepManagedFields bool
	// SyncPeriod, when not zero, replaces Options.SyncPeriod for this
	// kind; see [InformerOptions.SyncPeriod].
	SyncPeriod time.Duration
	// NamespaceSelectors gives namespaces of this kind selectors of their
	// own (controller-runtime's ByObject.Namespaces with a Config each);
	// see [InformerOptions.NamespaceSelectors]. Its keys must be among the
	// kind's namespaces (Namespaces, or Options.Namespaces).
	NamespaceSelectors map[string]Selectors
}

// Cache serves reads of many kinds from informers: one per kind and Go
// type (a typed, an unstructured and a metadata-only read of the same
// kind are three informers), made on first use or declared up front.
// Reads return deep copies the caller owns; [View] reads without copying.
// A Cache is safe for concurrent use.
type Cache struct {
	client *kube.Client
	opts   Options
	log    *slog.Logger
	// declared maps each kind of opts.ByObject to its options.
	declared map[kube.GroupVersionKind]ByObject
	// sharded are the kinds whose informers are sharded (ShardKind),
	// with their InformerOptions.ShardsPending; guarded by mu.
	sharded map[kube.GroupVersionKind]func() bool
	// scoped are the namespaces and selectors SetNamespaces and
	// SetScope gave kinds, for the informers made after; guarded by mu,
	// nil until the first call. scoping orders the calls of both.
	scoped  map[kube.GroupVersionKind]kindScope
	scoping sync.Mutex

	mu sync.Mutex
	// kinds holds every informer made, by kind and Go type.
	kinds map[kindKey]*cachedKind
	// phase moves from idle to running (Start) to stopped (Start's
	// context done); no informer is made once stopped.
	phase phase
	// pending are informers made but not started; Start's loop starts
	// them, woken through wake (room for one token).
	pending []*cachedKind
	wake    chan struct{}
	// started is closed when Start has made the informers of the
	// declared kinds, or failed to (startErr, set before).
	started  chan struct{}
	startErr error

	// writes remembers the client's writes not yet seen (writes.go);
	// loggedDrop is set once a drop of records past their bounds was
	// logged.
	writes     writes
	loggedDrop atomic.Bool
}

// kindScope is the scope SetNamespaces or SetScope gave a kind.
type kindScope struct {
	namespaces []string
	selectors  map[string]Selectors
}

type kindKey struct {
	gvk kube.GroupVersionKind
	typ reflect.Type // the stored type (not the pointer)
}

// cachedKind is one informer of the cache (of a kind and Go type) and
// what reads need to serve it.
type cachedKind struct {
	inf     *informer
	mapping kube.Mapping
	copy    func(dst, src reflect.Value)
	// stop cancels the informer's Start and ended is closed when it has
	// returned; set, under Cache.mu, when Start's loop starts it.
	stop  context.CancelFunc
	ended chan struct{}
}

// New makes a cache. It does no I/O and starts nothing; call
// [Cache.Start]. It fails when client is nil or a declared kind is
// incomplete or declared twice.
func New(client *kube.Client, opts Options) (*Cache, error) {
	if client == nil {
		return nil, errors.New("new cache: client is nil")
	}
	declared := map[kube.GroupVersionKind]ByObject{}
	for n, k := range opts.ByObject {
		if k.Object == nil {
			return nil, errs.Errorf("new cache: ByObject[%d].Object is nil", n)
		}
		gvk := k.Object.GroupVersionKind()
		if gvk.Kind == "" || gvk.Version == "" {
			return nil, errs.Errorf("new cache: ByObject[%d].Object (%T) has no apiVersion and kind", n, k.Object)
		}
		if _, ok := declared[gvk]; ok {
			return nil, errs.Errorf("new cache: kind %s declared twice", gvk)
		}
		declared[gvk] = k
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Cache{client: client, opts: opts, log: log, declared: declared,
		kinds: map[kindKey]*cachedKind{}, sharded: map[kube.GroupVersionKind]func() bool{}, wake: make(chan struct{}, 1), started: make(chan struct{})}, nil
}

// Start starts the informers of the declared kinds, and of every kind
// first read after, and runs them until ctx is done; it then waits for all
// of them to end. It fails when called twice, and when discovery of a
// declared kind fails (then before starting anything).
func (c *Cache) Start(ctx context.Context) error {
	if !c.made() {
		return errNoCache
	}
	c.mu.Lock()
	if c.phase != idle {
		c.mu.Unlock()
		return errors.New("start cache: started before")
	}
	c.phase = running
	c.mu.Unlock()
	var err error
	for _, k := range c.opts.ByObject {
		if _, err = c.kindFor(ctx, k.Object.GroupVersionKind(), reflect.TypeOf(k.Object).Elem()); err != nil {
			break
		}
	}
	c.startErr = err
	close(c.started)
	var wg sync.WaitGroup
	for err == nil {
		c.mu.Lock()
		for _, k := range c.pending {
			ictx, stop := context.WithCancel(ctx)
			k.stop, k.ended = stop, make(chan struct{})
			ended := k.ended
			wg.Go(func() {
				// It returns once ictx is done (stop called, or ctx done):
				// it fails only when started twice.
				_ = k.inf.Start(ictx)
				close(ended)
			})
		}
		c.pending = nil
		c.mu.Unlock()
		select {
		case <-c.wake:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	c.mu.Lock()
	c.phase = stopped
	c.mu.Unlock()
	wg.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return errs.Errorf("start cache: %w", err)
}

// kindFor returns the informer for kind gvk stored as type typ, making it
// (and, in a running cache, starting it) on first use. Making it asks
// discovery where the kind lives.
func (c *Cache) kindFor(ctx context.Context, gvk kube.GroupVersionKind, typ reflect.Type) (*cachedKind, error) {
	key := kindKey{gvk: gvk, typ: typ}
	c.mu.Lock()
	k, ph := c.kinds[key], c.phase
	pending, sharded := c.sharded[gvk]
	c.mu.Unlock()
	if k != nil {
		return k, nil
	}
	if gvk.Kind == "" || gvk.Version == "" {
		return nil, errs.Errorf("object of type *%s has no apiVersion and kind", typ)
	}
	ko, ok := c.declared[gvk]
	if !ok && c.opts.ReaderFailOnMissingInformer {
		return nil, &NotAllowedError{Kind: gvk, Reason: "the cache serves declared kinds only (Options.ByObject)"}
	}
	if ph == stopped {
		return nil, errs.Errorf("cache for %s: %w", gvk.Kind, ErrStopped)
	}
	m, err := c.client.Mapping(ctx, gvk)
	if err != nil {
		return nil, errs.Errorf("cache for %s: %w", gvk.Kind, err)
	}
	opts := InformerOptions{Kind: gvk, LabelSelector: ko.LabelSelector, FieldSelector: ko.FieldSelector,
		ShardSelector:      ko.ShardSelector,
		NamespaceSelectors: ko.NamespaceSelectors,
		Transform:          ko.Transform, SyncPeriod: c.opts.SyncPeriod,
		WatchList: c.opts.WatchList, PageSize: c.opts.PageSize, Compact: c.opts.Compact || ko.Compact,
		KeepManagedFields: c.opts.KeepManagedFields || ko.KeepManagedFields,
		Logger:            c.opts.Logger, Sharded: sharded, ShardsPending: pending, WatchErrorHandler: c.opts.WatchErrorHandler}
	if ko.Transform == nil {
		opts.Transform = c.opts.DefaultTransform
	}
	if ko.SyncPeriod != 0 {
		opts.SyncPeriod = ko.SyncPeriod
	}
	newObj := func() kube.Object { return reflect.New(typ).Interface().(kube.Object) }
	if _, ok := reflect.New(typ).Interface().(kube.Object); !ok {
		return nil, errs.Errorf("*%s does not implement kube.Object", typ)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if k := c.kinds[key]; k != nil {
		return k, nil // made meanwhile by another reader
	}
	if m.Namespaced { // under mu, as SetNamespaces changes scoped
		opts.Namespaces = c.opts.Namespaces
		if ko.Namespaces != nil {
			opts.Namespaces = ko.Namespaces
		}
		if sc, ok := c.scoped[gvk]; ok {
			opts.Namespaces, opts.NamespaceSelectors = sc.namespaces, sc.selectors
		}
	}
	inf, err := newInformer(c.client, gvk, newObj, opts)
	if err != nil {
		return nil, err
	}
	k = &cachedKind{inf: inf, mapping: m, copy: deepcopy.Of(typ)}
	c.kinds[key] = k
	c.pending = append(c.pending, k)
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return k, nil
}

// ShardKind makes the informers of obj's kind sharded
// ([InformerOptions.Sharded]): they hold no object until a shard is added
// to them, and then the objects of the shards added; reads of the kind
// see only those. It is how a sharded controller's kind is cached (the
// manager calls it for the controller builder). It fails once an informer
// of the kind was made, and for a kind declared with a ShardSelector of
// its own. Namespaces (Options.Namespaces, or the kind's own) still
// apply: each shard is then read namespace by namespace, one watch per
// shard and namespace (see [InformerOptions.Sharded]). pending, when not
// nil, is the informers' [InformerOptions.ShardsPending].
func (c *Cache) ShardKind(obj kube.Object, pending func() bool) error {
	if !c.made() {
		return errNoCache
	}
	gvk := obj.GroupVersionKind()
	if ko, ok := c.declared[gvk]; ok && !ko.ShardSelector.Empty() {
		return errs.Errorf("shard kind %s: it is declared in ByObject with a ShardSelector", gvk.Kind)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.kinds {
		if k.gvk == gvk {
			return errs.Errorf("shard kind %s: an informer of the kind was made before", gvk.Kind)
		}
	}
	c.sharded[gvk] = pending
	return nil
}

// GetInformer returns the informer of obj's kind and Go type, for adding
// handlers, making it on first use as reads do (controller-runtime's
// Informers.GetInformer).
func (c *Cache) GetInformer(ctx context.Context, obj kube.Object) (ObjectInformer, error) {
	if !c.made() {
		return nil, errNoCache
	}
	k, err := c.kindFor(ctx, obj.GroupVersionKind(), reflect.TypeOf(obj).Elem())
	if err != nil {
		return nil, err
	}
	return k.inf, nil
}

// IndexField registers an index on obj's kind and Go type under the name
// field, so that List answers the field selector "field=value" with the
// objects for which fn returns value (controller-runtime's
// MatchingFields). fn must be a pure function of the object. It may be
// called at any time; the cost is one call of fn per cached object.
func (c *Cache) IndexField(ctx context.Context, obj kube.Object, field string, fn IndexFunc) error {
	if !c.made() {
		return errNoCache
	}
	k, err := c.kindFor(ctx, obj.GroupVersionKind(), reflect.TypeOf(obj).Elem())
	if err != nil {
		return err
	}
	if err := k.inf.store.addIndex(field, fn); err != nil {
		return errs.Errorf("index %s: %w", obj.GroupVersionKind().Kind, err)
	}
	return nil
}

// informers returns the informers made so far, by kind.
// informersOf returns the informers of kind gvk (one per Go type it is
// read as).
func (c *Cache) informersOf(gvk kube.GroupVersionKind) []*informer {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*informer
	for k, kd := range c.kinds {
		if k.gvk == gvk {
			out = append(out, kd.inf)
		}
	}
	return out
}

func (c *Cache) informers() []*informer {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*informer, 0, len(c.kinds))
	for _, k := range c.kinds {
		out = append(out, k.inf)
	}
	slices.SortFunc(out, func(a, b *informer) int {
		return cmp.Compare(a.gvk.String(), b.gvk.String())
	})
	return out
}

// WaitForSync waits until the cache is started and every informer made
// so far (those of the declared kinds at least) has synced, or ctx is
// done (the error is then ctx's or a [*NotSyncedError]).
func (c *Cache) WaitForSync(ctx context.Context) error {
	if !c.made() {
		return errNoCache
	}
	select {
	case <-c.started:
	case <-ctx.Done():
		return errs.Errorf("wait for the cache to start: %w", ctx.Err())
	}
	if c.startErr != nil {
		return errs.Errorf("start cache: %w", c.startErr)
	}
	for _, inf := range c.informers() {
		if err := inf.WaitForSync(ctx); err != nil {
			return err
		}
	}
	return nil
}

// HasSynced reports whether every informer made so far has synced.
func (c *Cache) HasSynced() bool {
	if !c.made() {
		return false
	}
	for _, inf := range c.informers() {
		if !inf.HasSynced() {
			return false
		}
	}
	return true
}

// Stats returns the counters of every informer, sorted by kind: the
// objects and approximate bytes cached per kind, for metrics.
func (c *Cache) Stats() []Stats {
	if !c.made() {
		return nil
	}
	infs := c.informers()
	out := make([]Stats, len(infs))
	for n, inf := range infs {
		out[n] = inf.stats()
	}
	return out
}
