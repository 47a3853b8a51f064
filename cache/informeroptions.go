// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"errors"
	"fmt"
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
	// ShardSelector limits the informer to the objects whose hash of a
	// field falls in its ranges: every list and watch (WatchList
	// included) asks the server for those alone, through kube-apiserver
	// 1.36's sharded list and watch. A server that ignores the selector
	// (the ShardedListAndWatch gate off, or older) sends every object; the
	// informer then drops the others itself with the same hash
	// ([kube.ShardSelector.Matches]), so that the store and the handlers
	// see the same objects either way and only the bytes read differ
	// ([Stats].ShardDropped counts the objects dropped). The hashed fields
	// (uid, namespace) never change, so an object never moves in or out.
	// Empty means every object.
	ShardSelector kube.ShardSelector
	// Sharded makes an informer whose shards change at run time: it holds
	// no object until a shard is added ([Informer.AddShard]), and then
	// keeps the objects of each shard added, in one store, until the
	// shard is removed ([Informer.RemoveShard]); see shards.go for what
	// handlers are told. It is synced as soon as it runs; each shard has
	// its own sync ([Informer.WaitForShard]). ShardSelector must be
	// empty. What it costs depends on the server:
	//   - A server that filters (kube-apiserver 1.36 with the
	//     ShardedListAndWatch gate on): each shard has a reflector of its
	//     own, one list or WatchList and watch of the shard alone, so
	//     taking or moving a shard reads that shard alone. Until the first
	//     shard's first state is stored, its reflector runs alone (a
	//     probe), so the others start one read later.
	//   - A server that ignores the selector (the gate off, or older): once
	//     the informer sees an object outside a shard it asked for, or a
	//     list without metadata.shardInfo, it stops the shards' reflectors
	//     for good and reads and watches the kind with one reflector for
	//     all its shards, keeping their objects alone (shards_fallback.go):
	//     each event is received once, the kind is read once at the
	//     switch, and once more for each burst of shards added
	//     (coalesced over a quarter second of quiet, at most two seconds,
	//     or five while ShardsPending announces more), while the
	//     shards held keep being served. Memory is the shards' share; the bytes read
	//     and decoded at start are about an unsharded informer's, and
	//     taking ranges later costs a read of the kind, not of the ranges.
	//
	// With Namespaces, each reflector above is one per namespace. On a
	// server that filters, a member holds namespaces × shards watches
	// (on one that ignores the selector, namespaces): with 10 namespaces, a
	// member of a ring of three holding 21 of 64 ranges has 210 watches
	// (640 on the server for the ring), where an unsharded replica has
	// 10. Each is an HTTP/2 stream on the client and a watcher (a
	// goroutine and a buffer) on the server; the server's watch cache
	// checks an event against the watchers of its namespace alone, so
	// the cost per event is that of all namespaces sharded (one check
	// per range), and a relist after a 410 reads one namespace's share
	// of one shard. Keep the product small: few namespaces, or fewer
	// ranges (see package leader). Without Namespaces a shard needs one
	// watch, but the right to list and watch the kind cluster-wide.
	Sharded bool
	// ShardsPending, for a sharded informer, reports whether shards are
	// about to be added (a ring member's claims waiting for their
	// previous holders' releases). On a server that ignores the shard
	// selector, the informer waits while it reports true, at most five
	// seconds, before reading the kind for the shards added, so that
	// shards added a step or two apart cost one read (see Sharded). Nil
	// means none is ever announced. It is called from the informer's
	// goroutines, a few times a second at most while shards are added.
	ShardsPending func() bool
	// Transform is applied to every object the server sends, before it is
	// stored or handed to a handler; it changes the object in place. See
	// [DropManagedFields].
	Transform func(obj kube.Object)
	// SyncPeriod is how often every handler gets OnUpdate(obj, obj, true) for
	// every cached object, each period drawn within ±10%. Zero means
	// [DefaultSyncPeriod]; negative turns resyncs off.
	SyncPeriod time.Duration
	// DisableWatchList makes the informer read the initial state with
	// paged lists. By default it asks for a WatchList stream
	// (sendInitialEvents=true), as client-go 1.36 does, and falls back to
	// lists for good when the server refuses it (400, 403, 405, 406, 415
	// or 422).
	DisableWatchList bool
	// PageSize is the limit of each page of a list; zero means
	// [kube.DefaultPageSize].
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
			return o, fmt.Errorf("namespace %q is in Namespaces twice", ns)
		}
	}
	if err := o.ShardSelector.Validate(); err != nil {
		return o, fmt.Errorf("ShardSelector: %w", err)
	}
	o.ShardSelector.Ranges = slices.Clone(o.ShardSelector.Ranges)
	if o.Sharded && !o.ShardSelector.Empty() {
		return o, errors.New("Sharded takes its shards from AddShard: leave ShardSelector empty")
	}
	if o.PageSize < 0 {
		return o, fmt.Errorf("PageSize %d is negative", o.PageSize)
	}
	if o.PageSize == 0 {
		o.PageSize = kube.DefaultPageSize
	}
	if o.SyncPeriod == 0 {
		o.SyncPeriod = DefaultSyncPeriod
	}
	return o, nil
}
