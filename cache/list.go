// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// list reads the whole state with a paged list into a new state and swaps
// it into the store. At most one page is held besides the state being
// built: each page is decoded into objects and dropped before the next is
// asked for. A failed page is asked for again, with the same continue
// token, after a backoff; a 410 (the continue token expired) fails the
// whole list, so that it starts again from the first page.
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

// page reads one page into next and returns its list metadata.
func (r *reflector) page(ctx context.Context, next *state, opts kube.ListOptions) (kube.ListMeta, error) {
	i := r.i
	i.counters.lists.Add(1)
	if i.metadataOnly {
		list := kube.List[kube.PartialObjectMetadata]{}
		list.SetGroupVersionKind(kube.GroupVersionKind{Group: i.gvk.Group, Version: i.gvk.Version, Kind: i.gvk.Kind + "List"})
		if err := i.client.List(ctx, &list, opts); err != nil {
			return kube.ListMeta{}, err
		}
		for j := range list.Items {
			obj := new(kube.PartialObjectMetadata)
			*obj = list.Items[j]
			list.Items[j] = kube.PartialObjectMetadata{}
			i.prepare(obj)
			next.add(obj, metaSize(&obj.ObjectMeta))
		}
		return list.ListMeta, nil
	}
	list := rawList{gvk: i.gvk}
	if err := i.client.List(ctx, &list, opts); err != nil {
		return kube.ListMeta{}, err
	}
	for j, raw := range list.Items {
		obj, size, err := i.decode(raw)
		if err != nil {
			return kube.ListMeta{}, fmt.Errorf("list %s: item %d: %w", i.gvk.Kind, j, err)
		}
		next.add(obj, size)
		list.Items[j] = nil
	}
	return list.ListMeta, nil
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

// rawList is a page of a list with its items left as JSON, so that each is
// decoded straight into its own object of the informer's type (which
// kube.List cannot name for a type known only at run time). It implements
// kube.ObjectList for Client.List, which reads only ItemGroupVersionKind
// (before the call: the call then resets the value) and decodes into it.
type rawList struct {
	kube.TypeMeta
	kube.ListMeta `json:"metadata"`
	Items         []json.RawMessage `json:"items"`
	gvk           kube.GroupVersionKind
}

func (l *rawList) ItemGroupVersionKind() kube.GroupVersionKind { return l.gvk }
func (l *rawList) Len() int                                    { return len(l.Items) }

// Item is not used: the items are decoded by the reflector.
func (l *rawList) Item(int) kube.Object { return nil }

// metaSize estimates the JSON size of metadata, for objects read from a
// metadata-only list (whose items' JSON the client does not expose).
func metaSize(m *kube.ObjectMeta) int32 {
	n := 160 + len(m.Name) + len(m.GenerateName) + len(m.Namespace) + len(m.UID) + len(m.ResourceVersion) + len(m.ManagedFields)
	for k, v := range m.Labels {
		n += len(k) + len(v) + 6
	}
	for k, v := range m.Annotations {
		n += len(k) + len(v) + 6
	}
	for _, r := range m.OwnerReferences {
		n += 80 + len(r.APIVersion) + len(r.Kind) + len(r.Name) + len(r.UID)
	}
	for _, f := range m.Finalizers {
		n += len(f) + 3
	}
	return int32(min(n, 1<<31-1))
}
