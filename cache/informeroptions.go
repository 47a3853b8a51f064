// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"errors"
	"github.com/kubeloop/kubeloop/internal/errs"
	"log/slog"
	"slices"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// InformerOptions configure an informer. Only Kind may be required; the
// zero value of everything else is a good default.
type InformerOptions struct {
	// Kind is the kind to watch. Typed objects state their own kind and
	// may leave it empty (if set, it must agree); [kube.Unstructured] and
	// [kube.PartialObjectMetadata] need it.
	Kind kube.GroupVersionKind
	// Namespaces limits the informer to these namespaces, with one list
	// and watch for each (into one store); empty means all namespaces, with
	// one list and watch. Cluster-scoped kinds must leave it empty.
	Namespaces []string
	// LabelSelector and FieldSelector limit the objects the server sends.
	LabelSelector kube.Selector
	FieldSelector kube.FieldSelector
	// NamespaceSelectors gives namespaces their own selectors, sent
	// instead of LabelSelector and FieldSelector in the list and watch of
	// each namespace it names. Its keys must be in Namespaces. The
	// informer keeps the map: do not change it after.
	NamespaceSelectors map[string]Selectors
	// ShardSelector limits the informer to the objects whose hash of the
	// shard field falls in its ranges, asked of the server in every list
	// and watch and checked again here (see "Sharding" in the package
	// doc). Empty means every object.
	ShardSelector kube.ShardSelector
	// Sharded makes an informer whose shards change at run time: it holds
	// no object until a shard is added ([Informer.AddShard]), then the
	// objects of each shard added until it is removed
	// ([Informer.RemoveShard]). It is synced as soon as it runs; each
	// shard has its own sync ([Informer.WaitForShard]). ShardSelector
	// must be empty. See "Sharding" in the package doc for what handlers
	// are told and what it costs.
	Sharded bool
	// ShardsPending, for a sharded informer, reports whether shards are
	// about to be added (a ring member's claims waiting for their
	// previous holders' releases): on a server that ignores the shard
	// selector, the informer waits while it reports true, at most five
	// seconds, before reading the kind for the shards added. Nil means
	// none is ever announced. It is called from the informer's
	// goroutines, a few times a second at most while shards are added.
	ShardsPending func() bool
	// Transform is applied to every object the server sends, before it is
	// stored or handed to a handler; it changes the object in place.
	Transform func(obj kube.Object)
	// KeepManagedFields keeps metadata.managedFields in the objects
	// cached. By default the informer decodes every object without them:
	// their JSON is checked and skipped, never built
	// (kube.ListOptions.SkipManagedFields), as they are often the largest
	// part of an object's metadata and a controller that needs them reads
	// the object from the API server, whose answers keep them.
	KeepManagedFields bool
	// SyncPeriod is how often every handler gets OnUpdate(obj, obj, true) for
	// every cached object, each period drawn within ±10%. Zero means
	// [DefaultSyncPeriod]; negative turns resyncs off.
	SyncPeriod time.Duration
	// WatchList makes the informer read the initial state (at start and
	// after a 410) from a WatchList stream (sendInitialEvents=true), as
	// client-go 1.36 does by default, falling back to lists for good when
	// the server refuses it (400, 403, 405, 406, 415 or 422).
	//
	// By default the initial state is one consistent list (no
	// resourceVersion), which kube-apiserver 1.31 and later serve from
	// their watch cache. On kube-apiserver 1.36, in JSON, that is the
	// cheapest way for both sides: for 50,000 ConfigMaps of 1 KiB the
	// server spends 0.5 s of CPU on one list against 1.9 s on a WatchList
	// stream (each watch event's object is encoded, then scanned again as
	// the event is encoded around it) and 2.3 s on pages of 500 (each page
	// walks the cache from its continue key to the end of the resource),
	// and the informer syncs in 0.9 s against 2.7 s by WatchList and 2.1
	// to 2.8 s by pages (testdata/peer/measure.sh). What it costs the
	// server is memory while the answer is written: a shallow copy of each
	// object listed. Set WatchList, or PageSize, for servers that serve
	// consistent lists from etcd (before 1.31, or with the
	// ConsistentListFromCache feature off), where an unpaged list is read
	// from etcd whole.
	WatchList bool
	// PageSize, when not zero, makes each list ask for at most that many
	// objects, following the continue tokens page after page. Zero (the
	// default) asks for everything in one list.
	PageSize int64
	// Compact stores each object as its JSON (after Transform) rather
	// than as a Go value, for a decode on every read: 1,360 bytes an
	// object instead of 1,792 for 50,000 ConfigMaps of 1 KiB, 256 instead
	// of 400 metadata-only (managedFields dropped in both). Reads then
	// return new objects each time, so [ReadOnly] does not save a copy,
	// and handlers decode the objects a list (the first one too), a late
	// registration or a resync gives them, each its own. T's JSON must
	// round-trip (Unmarshal of what Marshal made gives the object back),
	// as for every type the API server serves; what Transform sets in
	// fields JSON does not carry is lost. Meant for large caches that are
	// read rarely, for example the objects a controller only maps to a
	// request key.
	Compact bool
	// WatchErrorHandler, when set, is called with every failure of the
	// informer's lists and watches, before the retry's backoff (as
	// client-go's SetWatchErrorHandler): for metrics, or to stop a
	// program whose informers cannot read. See [WatchErrorHandler].
	WatchErrorHandler WatchErrorHandler
	// Logger receives list and watch failures (warn), relists after a 410
	// and a server's refusal of WatchList (info); nil discards them.
	Logger *slog.Logger
}

// normalize returns o with its defaults filled in and its slices its
// own, or an error naming the first field that is wrong.
func (o InformerOptions) normalize() (InformerOptions, error) {
	o.Namespaces = slices.Clone(o.Namespaces)
	for n, ns := range o.Namespaces {
		if ns == "" {
			return o, errors.New("Namespaces holds an empty namespace: leave Namespaces empty for all")
		}
		if slices.Contains(o.Namespaces[:n], ns) {
			return o, errs.Errorf("namespace %q is in Namespaces twice", ns)
		}
	}
	for ns := range o.NamespaceSelectors {
		if !slices.Contains(o.Namespaces, ns) {
			return o, errs.Errorf("NamespaceSelectors names namespace %q, which is not in Namespaces", ns)
		}
	}
	if err := o.ShardSelector.Validate(); err != nil {
		return o, errs.Errorf("ShardSelector: %w", err)
	}
	o.ShardSelector.Ranges = slices.Clone(o.ShardSelector.Ranges)
	if o.Sharded && !o.ShardSelector.Empty() {
		return o, errors.New("Sharded takes its shards from AddShard: leave ShardSelector empty")
	}
	if o.PageSize < 0 {
		return o, errs.Errorf("PageSize %d is negative", o.PageSize)
	}
	if o.SyncPeriod == 0 {
		o.SyncPeriod = DefaultSyncPeriod
	}
	return o, nil
}
