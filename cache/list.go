// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// list reads the whole state with a paged list into a new state and swaps
// it into the store. Besides the state being built it holds one page's
// objects, decoded as they arrive (kube.Client.ListEach), never a page's
// JSON. A failed page is asked for again, with the same continue token,
// after a backoff; a 410 (the continue token expired) fails the whole
// list, so that it starts again from the first page.
func (r *reflector) list(ctx context.Context) error {
	i := r.i
	next := newState(i.store.codec)
	opts := i.listOptions(r.ns)
	opts.Limit = i.opts.PageSize
	for {
		meta, err := r.page(ctx, next, opts)
		if err != nil {
			if kube.IsGone(err) || ctx.Err() != nil {
				return err
			}
			i.lastErr.Store(&err)
			d := r.b.next(time.Now(), jitter())
			i.log.Warn("list page failed; retrying", "err", err, "delay", d)
			if !sleep(ctx, d) {
				return ctx.Err()
			}
			continue
		}
		if meta.Continue == "" {
			i.replace(next, r.ns, !r.relisting)
			r.rv, r.relisting = meta.ResourceVersion, true
			return nil
		}
		opts.Continue = meta.Continue
	}
}

// page reads one page into next and returns its list metadata. The
// page's objects go into next only once the whole page has been read: a
// page cut midway and asked for again (without a continue token, at a
// newer resourceVersion) must not leave objects the second answer lacks.
func (r *reflector) page(ctx context.Context, next *state, opts kube.ListOptions) (kube.ListMeta, error) {
	i := r.i
	i.counters.lists.Add(1)
	var objs []kube.Object
	var sizes []int32
	meta, err := i.client.ListEach(ctx, i.gvk, opts, i.newObj, func(obj kube.Object, size int) error {
		i.prepare(obj)
		objs, sizes = append(objs, obj), append(sizes, int32(min(size, 1<<31-1)))
		return nil
	})
	if err != nil {
		return meta, err
	}
	for n, obj := range objs {
		next.add(obj, sizes[n])
	}
	return meta, nil
}

// listOptions are the options every list and watch of the informer shares.
func (i *informer) listOptions(ns string) kube.ListOptions {
	return kube.ListOptions{
		Namespace:     ns,
		LabelSelector: i.opts.LabelSelector,
		FieldSelector: i.opts.FieldSelector,
		MetadataOnly:  i.metadataOnly,
	}
}
