// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"fmt"

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

// listWatch is an informer's [listerWatcher] for the reflector of
// namespace ns ("" for all), with the namespace's selectors sel (the
// informer's selectors(ns) when the reflector was made: a reflector
// reads with the same selectors from start to end) and shard selector
// shard (empty for all). keep, when set, chooses the objects kept of an
// unfiltered read (the fallback mode of a sharded informer:
// shards_fallback.go).
type listWatch struct {
	i     *informer
	ns    string
	sel   Selectors
	shard kube.ShardSelector
	keep  func(kube.Object) bool
}

// selectors returns the selectors of namespace ns's reads: its own
// (InformerOptions.NamespaceSelectors, changed by SetScope), else the
// informer's. Call with i.mu held, or on a sharded informer, whose
// selectors never change.
func (i *informer) selectors(ns string) Selectors {
	if sel, ok := i.opts.NamespaceSelectors[ns]; ok {
		return sel
	}
	return Selectors{Label: i.opts.LabelSelector, Field: i.opts.FieldSelector}
}

// scoped returns opts with the informer's scope: namespace, selectors,
// and the metadata projection for a metadata-only informer.
func (lw listWatch) scoped(opts kube.ListOptions) kube.ListOptions {
	opts.Namespace = lw.ns
	opts.LabelSelector, opts.FieldSelector = lw.sel.Label, lw.sel.Field
	opts.ShardSelector = lw.shard
	opts.MetadataOnly = lw.i.metadataOnly
	opts.SkipManagedFields = !lw.i.opts.KeepManagedFields
	return opts
}

// list implements [listerWatcher] with [kube.Client.ListEach]: objects
// are decoded one at a time as the answer arrives, and those outside the
// shard selector dropped (see [InformerOptions.ShardSelector]).
func (lw listWatch) list(ctx context.Context, opts kube.ListOptions, each func(kube.Object, int32)) (kube.ListMeta, error) {
	i := lw.i
	meta, err := i.client.ListEach(ctx, i.gvk, lw.scoped(opts), i.newObj, func(obj kube.Object, size int) error {
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
// once, and a sharded informer switches to its fallback mode.
func (lw listWatch) ignored() {
	i := lw.i
	if !i.reads.shardIgnored.Swap(true) {
		i.log.Info("server ignores shardSelector; filtering on the client", "shardSelector", lw.shard.String())
	}
	if i.shards != nil {
		i.shards.serverIgnores()
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
	lw.i.reads.shardDropped.Add(1)
	return true
}

// watch implements [listerWatcher] with [kube.Client.Watch].
func (lw listWatch) watch(ctx context.Context, opts kube.ListOptions) (eventStream, error) {
	w, err := lw.i.client.Watch(ctx, lw.i.gvk, lw.scoped(opts))
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
	obj := lw.i.newObj()
	if err := ev.Decode(obj); err != nil {
		return nil, 0, fmt.Errorf("decode %s: %w", lw.i.gvk.Kind, err)
	}
	lw.prepare(obj)
	return obj, clampSize(len(ev.Object)), nil
}

// prepare stamps the informer's kind on obj (list items and the metadata
// projection do not carry it; watch events do, but then every object
// would hold its own copy of the strings) and applies the transform; the
// client's decoder has interned the metadata's repeated strings already.
func (lw listWatch) prepare(obj kube.Object) {
	i := lw.i
	if s, ok := obj.(interface{ SetGroupVersionKind(kube.GroupVersionKind) }); ok {
		s.SetGroupVersionKind(i.gvk)
	}
	if i.opts.Transform != nil {
		i.opts.Transform(obj)
	}
}

// clampSize returns n as an int32, the size type of the store's entries.
func clampSize(n int) int32 { return int32(min(n, 1<<31-1)) }
