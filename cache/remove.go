// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"github.com/kubeloop/kubeloop/internal/errs"
	"reflect"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
)

// ErrInUse is wrapped by the error of [Cache.RemoveInformer] for an
// informer that handlers are registered on.
var ErrInUse = errors.New("handlers are registered on the informer")

// RemoveInformer stops the informer of obj's kind and Go type and takes
// it out of the cache (controller-runtime's Informers.RemoveInformer),
// while the cache runs or before: its lists and watches end, its
// goroutines have returned and its objects are released when
// RemoveInformer returns nil. A later read, GetInformer or IndexField of
// the kind makes a new informer, as on first use, which lists the kind
// again; indexes added to the old one are not carried over.
//
// It refuses, with an error wrapping [ErrInUse], an informer that
// handlers are registered on (a controller's sources, or handlers added
// through [Cache.GetInformer]): removing it would leave them waiting for
// changes that never come. Remove the handlers first
// (ObjectInformer.RemoveEventHandler, or stop the controller: its
// sources remove theirs). From the call on, the informer takes no new
// handler ([ErrStopped]); holders of it, or of a [View] of it, see an
// empty store once RemoveInformer has returned.
//
// It fails when the cache holds no informer of obj's kind and Go type,
// and when ctx ends before the informer has stopped (it then stops
// anyway, out of the cache already).
func (c *Cache) RemoveInformer(ctx context.Context, obj kube.Object) error {
	if !c.made() {
		return errNoCache
	}
	gvk := obj.GroupVersionKind()
	key := kindKey{gvk: gvk, typ: reflect.TypeOf(obj).Elem()}
	c.mu.Lock()
	k := c.kinds[key]
	if k == nil {
		c.mu.Unlock()
		return errs.Errorf("remove informer for %s: the cache holds none for *%s", gvk.Kind, key.typ)
	}
	if n := k.inf.hub.retire(); n > 0 {
		c.mu.Unlock()
		return errs.Errorf("remove informer for %s: %d handlers: %w", gvk.Kind, n, ErrInUse)
	}
	delete(c.kinds, key)
	c.pending = slices.DeleteFunc(c.pending, func(p *cachedKind) bool { return p == k })
	stop, ended := k.stop, k.ended
	c.mu.Unlock()
	if stop != nil {
		stop()
		select {
		case <-ended:
		case <-ctx.Done():
			return errs.Errorf("remove informer for %s: wait for it to stop: %w", gvk.Kind, ctx.Err())
		}
	}
	k.inf.store.clear()
	return nil
}
