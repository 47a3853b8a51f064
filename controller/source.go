// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"errors"
	"fmt"
	"github.com/kubeloop/kubeloop/internal/errs"
	"sync"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// Source is where a controller's requests come from: it turns what it
// sees into [Change]s, filters them through predicates and hands them to an
// [EventHandler], which queues requests. [Kind] and [Channel] make the two
// common ones. A Source value serves one controller, once.
type Source interface {
	// Run delivers requests to q until ctx is done, then undoes what it
	// did (removes its handler from a cache, say) and returns nil; it
	// returns only after every goroutine it started has ended. It returns
	// an error, at once, when it cannot start.
	Run(ctx context.Context, q Queue) error
	// WaitForSync returns nil once Run has given q the source's initial
	// state (at once for a source without one, such as a channel), or an
	// error naming the source when ctx is done first or Run failed. It may
	// be called before Run starts.
	WaitForSync(ctx context.Context) error
	// String names the source in logs and errors ("kind ConfigMap (v1)").
	String() string
}

// Kind returns a source of the changes of the objects src caches (an
// informer; see [cache.Informer.Source] and [cache.Cache.Source]). The
// cache, not the source, runs the informer. Events that pass every
// predicate go to h.
//
// The source is synced once the informer has stored its first list and
// has handed h (through the predicates) every object in it, or, for a
// source started after the informer synced, every object cached then.
func Kind(src cache.ObjectInformer, h EventHandler, preds ...Predicate) Source {
	k := newKindSource(preds)
	if src != nil {
		k.kind = src.Kind()
	}
	k.resolve = func(context.Context) (cache.ObjectInformer, EventHandler, error) {
		if src == nil {
			return nil, nil, errors.New("cache source is nil")
		}
		return src, h, nil
	}
	return k
}

// kindSource is a [Kind] source, or the builder's lazy one, which finds
// its informer (and its handler) when it starts.
type kindSource struct {
	kind  kube.GroupVersionKind // for String; immutable (zero when the source is unknown)
	preds []Predicate
	// resolve returns the informer and the handler; called by Run with
	// its context.
	resolve func(ctx context.Context) (cache.ObjectInformer, EventHandler, error)

	mu      sync.Mutex
	started bool // Run was called

	// ready is closed once Run has registered its handler, or failed;
	// src, reg and err are set before and never change after.
	ready chan struct{}
	src   cache.ObjectInformer
	reg   *cache.Registration
	err   error
}

func newKindSource(preds []Predicate) *kindSource {
	return &kindSource{preds: preds, ready: make(chan struct{})}
}

func (k *kindSource) String() string {
	if k.kind.Kind == "" {
		return "kind <unknown>"
	}
	return fmt.Sprintf("kind %s (%s)", k.kind.Kind, k.kind.APIVersion())
}

// Run implements [Source]: it registers a handler with the informer, and
// removes it once ctx is done. The informer's delivery goroutine calls
// the predicates and the EventHandler, one event at a time.
func (k *kindSource) Run(ctx context.Context, q Queue) error {
	k.mu.Lock()
	if k.started {
		k.mu.Unlock()
		return errs.Errorf("run %s: run before", k)
	}
	k.started = true
	k.mu.Unlock()

	src, h, err := k.resolve(ctx)
	var reg *cache.Registration
	switch {
	case err != nil:
	case h == nil:
		err = errors.New("event handler is nil")
	default:
		reg, err = src.AddEventHandler(k.handler(ctx, h, q))
	}
	if err != nil {
		err = errs.Errorf("watch %s: %w", k, err)
	}
	k.src, k.reg, k.err = src, reg, err
	close(k.ready)
	if err != nil {
		return err
	}
	<-ctx.Done()
	_ = src.RemoveEventHandler(reg) // fails only for a registration it does not hold
	return nil
}

// handler adapts the informer's notifications to changes.
func (k *kindSource) handler(ctx context.Context, h EventHandler, q Queue) cache.Handler[kube.Object] {
	deliver := func(c Change) {
		c.Key = c.Object.GetObjectMeta().Key()
		if allow(k.preds, c) {
			h.Handle(ctx, c, q)
		}
	}
	return cache.HandlerFuncs[kube.Object]{
		AddFunc: func(obj kube.Object, initial bool) {
			deliver(Change{Type: ChangeCreate, Object: obj, InInitialList: initial})
		},
		UpdateFunc: func(oldObj, newObj kube.Object, resync bool) {
			deliver(Change{Type: ChangeUpdate, Object: newObj, Old: oldObj, Resync: resync})
		},
		DeleteFunc: func(obj kube.Object, unknown bool) {
			deliver(Change{Type: ChangeDelete, Object: obj, FinalStateUnknown: unknown})
		},
	}
}

// WaitForSync implements [Source]. When ctx ends first and the informer
// itself has not synced, the error is the cache's [*cache.NotSyncedError],
// which names the kind and the informer's last list or watch failure.
func (k *kindSource) WaitForSync(ctx context.Context) error {
	select {
	case <-k.ready:
	case <-ctx.Done():
		return errs.Errorf("wait for %s to sync: not started: %w", k, ctx.Err())
	}
	if k.err != nil {
		return k.err
	}
	err := k.reg.WaitForSync(ctx)
	if err == nil {
		return nil
	}
	if !k.src.HasSynced() {
		if serr := k.src.WaitForSync(ctx); serr != nil {
			return serr
		}
	}
	return errs.Errorf("wait for %s to sync: handler not given the initial list: %w", k, err)
}

// Channel returns a source of the changes sent on ch, from
// outside the cluster (a webhook, a timer, another system). Changes that
// pass every predicate go to h, in the order sent, from the source's own
// goroutine.
//
// A change's Type is kept (the zero value is [ChangeGeneric]). A change
// with a Key and no Object gets a [kube.PartialObjectMetadata] holding
// that namespace and name, so predicates and handlers always see an
// object; a change with an Object gets its Key filled in; a change with
// neither (no name) is dropped. The source is synced at once. It stops
// when ctx is done or ch is closed.
func Channel(ch <-chan Change, h EventHandler, preds ...Predicate) Source {
	return &channelSource{ch: ch, h: h, preds: preds}
}

type channelSource struct {
	ch    <-chan Change
	h     EventHandler
	preds []Predicate
}

func (s *channelSource) String() string { return "channel" }

// WaitForSync implements [Source]: a channel has no initial state.
func (s *channelSource) WaitForSync(context.Context) error { return nil }

// Run implements [Source].
func (s *channelSource) Run(ctx context.Context, q Queue) error {
	switch {
	case s.ch == nil:
		return errors.New("run channel source: channel is nil")
	case s.h == nil:
		return errors.New("run channel source: event handler is nil")
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case c, ok := <-s.ch:
			if !ok {
				return nil
			}
			if !normalize(&c) {
				continue
			}
			if allow(s.preds, c) {
				s.h.Handle(ctx, c, q)
			}
		}
	}
}

// normalize fills in a change's Key or Object from the other; it reports
// false for a change that names nothing.
func normalize(c *Change) bool {
	switch {
	case c.Object != nil:
		c.Key = c.Object.GetObjectMeta().Key()
	case c.Key.Name != "":
		c.Object = &kube.PartialObjectMetadata{ObjectMeta: kube.ObjectMeta{Namespace: c.Key.Namespace, Name: c.Key.Name}}
	}
	return c.Key.Name != ""
}
