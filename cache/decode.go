// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"github.com/kubeloop/kubeloop/internal/errs"
	"log/slog"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is the informer's listerWatcher: the lists and watches of its
// kind, with its scope (namespace, selectors, shard). Decoding happens in
// package kube ([kube.Client.ListEach] hands over each list item decoded,
// [kube.WatchEvent.Decode] each watch event's object, in one pass with
// keys matched exactly as the API server matches them, the client's
// decoder interning the metadata's repeated strings); this file drops
// the objects outside the shard, stamps the kind and applies the
// informer's Transform. The raw JSON is not kept.

// DropManagedFields is a transform (see [InformerOptions.Transform]) that
// drops metadata.managedFields. Informers decode objects without them
// unless told to keep them ([InformerOptions.KeepManagedFields]), which
// costs nothing to build: this is for objects that come with them.
func DropManagedFields(obj kube.Object) {
	obj.GetObjectMeta().ManagedFields = nil
}

// source is what every reflector of an informer shares: the kind it
// reads and the client it reads with, how objects are decoded and
// prepared, and where the reflectors report (their counters, progress,
// failures, the log). newInformer makes it, as part of the informer; it
// never changes after, and its counters are safe for concurrent use. It
// knows nothing of the store, the handlers or the shards: a reflector's
// sink is given to it.
type source struct {
	client *kube.Client
	gvk    kube.GroupVersionKind
	log    *slog.Logger
	// newObj returns an empty object of the stored Go type.
	newObj func() kube.Object
	// metadataOnly is set when the stored type is
	// kube.PartialObjectMetadata: lists and watches ask for the metadata
	// projection.
	metadataOnly bool
	// keepManagedFields, transform, pageSize, watchList and failed are
	// the informer's options of those names (InformerOptions).
	keepManagedFields bool
	transform         func(kube.Object)
	pageSize          int64
	watchList         bool
	failed            WatchErrorHandler

	// reads are the reflectors' counts and last failure.
	reads readStats
	// progress is how far the reflectors have read, for reads that wait
	// for their own writes.
	progress progress
}

// reflector returns a reflector that reads through lw (its source set
// to s) into dst, logging to log: the one place an informer's
// reflectors are made, for a namespace of an informer that is not
// sharded, a shard, and a generation of the fallback mode.
func (s *source) reflector(lw listWatch, dst sink, log *slog.Logger) *reflector {
	lw.src = s
	return &reflector{
		lw:        lw,
		sink:      dst,
		log:       log,
		stats:     &s.reads,
		pageSize:  s.pageSize,
		watchList: s.watchList,
		progress:  &s.progress,
		failed:    s.failed,
		kind:      s.gvk,
		scope:     lw.ns,
	}
}

// notSynced is the error of a read before the informer has synced, with
// cause (why the wait ended) and the reflectors' last list or watch
// error.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (s *source) notSynced(cause error) error {
	e := &NotSyncedError{Kind: s.gvk, Cause: cause}
	if p := s.reads.lastErr.Load(); p != nil {
		e.LastError = *p
	}
	return e
}

// listWatch is a reflector's [listerWatcher] of namespace ns ("" for
// all) of src's kind, with the namespace's selectors sel (the
// informer's selectors(ns) when the reflector was made: a reflector
// reads with the same selectors from start to end) and shard selector
// shard (empty for all). keep, when set, chooses the objects kept of an
// unfiltered read (the fallback mode of a sharded informer:
// shards_fallback.go). ignores, when set, is called each time the
// server is seen to ignore shard (a shard's reflector: the shard set
// switches to the fallback mode).
type listWatch struct {
	src     *source
	ns      string
	sel     Selectors
	shard   kube.ShardSelector
	keep    func(kube.Object) bool
	ignores func()
}

// scoped returns opts with the informer's scope: namespace, selectors,
// and the metadata projection for a metadata-only informer.
func (lw listWatch) scoped(opts kube.ListOptions) kube.ListOptions {
	opts.Namespace = lw.ns
	opts.LabelSelector, opts.FieldSelector = lw.sel.Label, lw.sel.Field
	opts.ShardSelector = lw.shard
	opts.MetadataOnly = lw.src.metadataOnly
	opts.SkipManagedFields = !lw.src.keepManagedFields
	return opts
}

// list implements [listerWatcher] with [kube.Client.ListEach]: objects
// are decoded one at a time as the answer arrives, and those outside the
// shard selector dropped (see [InformerOptions.ShardSelector]).
func (lw listWatch) list(ctx context.Context, opts kube.ListOptions, each func(kube.Object, int32)) (kube.ListMeta, error) {
	src := lw.src
	meta, err := src.client.ListEach(ctx, src.gvk, lw.scoped(opts), src.newObj, func(obj kube.Object, size int) error {
		if lw.outOfShard(obj) {
			// Seeing the server ignore the selector stops a sharded
			// informer's shard reflectors: read no further then.
			return ctx.Err()
		}
		lw.prepare(obj)
		each(obj, clampSize(size))
		return nil
	})
	if sel := lw.shard; err == nil && !sel.Empty() && !meta.FilteredBy(sel) {
		lw.ignored()
	}
	return meta, err
}

// ignored records that the server ignored the shard selector: logged
// once, and told to lw.ignores.
func (lw listWatch) ignored() {
	if !lw.src.reads.shardIgnored.Swap(true) {
		lw.src.log.Info("server ignores shardSelector; filtering on the client", "shardSelector", lw.shard.String())
	}
	if lw.ignores != nil {
		lw.ignores()
	}
}

// outOfShard reports whether obj falls outside the reflector's shard
// selector (which a server that ignores it sent anyway), or is not one
// keep keeps, and counts it. Cost: one hash of the uid or namespace
// (per shard, with keep).
func (lw listWatch) outOfShard(obj kube.Object) bool {
	if lw.keep != nil {
		if lw.keep(obj) {
			return false
		}
	} else if lw.shard.Matches(obj) {
		return false
	} else {
		lw.ignored()
	}
	lw.src.reads.shardDropped.Add(1)
	return true
}

// watch implements [listerWatcher] with [kube.Client.Watch].
func (lw listWatch) watch(ctx context.Context, opts kube.ListOptions) (eventStream, error) {
	w, err := lw.src.client.Watch(ctx, lw.src.gvk, lw.scoped(opts))
	if err != nil {
		return nil, err
	}
	return watchStream{w: w, lw: lw}, nil
}

// watchStream is an [eventStream] over a [kube.Watcher].
type watchStream struct {
	w  *kube.Watcher
	lw listWatch
}

func (s watchStream) next() (event, error) {
	ev, err := s.w.Next()
	if err != nil {
		return event{}, err
	}
	if ev.Type == kube.Bookmark {
		return event{typ: ev.Type, rv: ev.ResourceVersion, initialEnd: ev.InitialEventsEnd}, nil
	}
	obj, size, err := s.lw.decode(&ev)
	if err != nil {
		return event{}, err
	}
	if s.lw.outOfShard(obj) { // only its resourceVersion counts, as a bookmark's
		return event{typ: kube.Bookmark, rv: obj.GetObjectMeta().ResourceVersion}, nil
	}
	return event{typ: ev.Type, obj: obj, size: size}, nil
}

func (s watchStream) stop() { s.w.Stop() }

// decode decodes the object of a watch event (through the watcher's
// decoder, reused from event to event: see [kube.WatchEvent.Decode]) and
// prepares it for the store. The size returned is the length of its JSON,
// the object's share of the cache's byte count.
func (lw listWatch) decode(ev *kube.WatchEvent) (kube.Object, int32, error) {
	obj := lw.src.newObj()
	if err := ev.Decode(obj); err != nil {
		return nil, 0, errs.Errorf("decode %s: %w", lw.src.gvk.Kind, err)
	}
	lw.prepare(obj)
	return obj, clampSize(len(ev.Object)), nil
}

// prepare stamps the informer's kind on obj (list items and the metadata
// projection do not carry it; watch events do, but then every object
// would hold its own copy of the strings) and applies the transform; the
// client's decoder has interned the metadata's repeated strings already.
func (lw listWatch) prepare(obj kube.Object) {
	if s, ok := obj.(interface{ SetGroupVersionKind(kube.GroupVersionKind) }); ok {
		s.SetGroupVersionKind(lw.src.gvk)
	}
	if lw.src.transform != nil {
		lw.src.transform(obj)
	}
}

// clampSize returns n as an int32, the size type of the store's entries.
func clampSize(n int) int32 { return int32(min(n, 1<<31-1)) }
