// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"

	"github.com/kubeloop/kubeloop/kube"
)

// Source is an informer of any kind, seen through [kube.Object]: what code
// that handles many kinds (the [Cache], a controller) holds. Get one from
// [Informer.Source] or [Cache.Source].
type Source interface {
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

var _ Source = (*informer)(nil)

// Stats are an informer's counters at one moment, for metrics.
type Stats struct {
	Kind kube.GroupVersionKind
	// Namespaces are the namespaces the informer is limited to; empty for
	// all.
	Namespaces []string
	// Objects is the number of objects cached.
	Objects int
	// Bytes approximates the memory they take: the size of the JSON they
	// were decoded from (estimated for metadata-only lists). The Go
	// objects are usually smaller, having dropped the fields their type
	// does not declare.
	Bytes int64
	// Synced is HasSynced.
	Synced bool
	// ListRequests counts list pages asked for; WatchRequests counts
	// watches opened; Relists counts full reads of the state after the
	// first (after a 410, or a broken WatchList); Events counts the
	// objects received in watch events.
	ListRequests, WatchRequests, Relists, Events uint64
	// Handlers is the number of registered handlers; Queued the
	// notifications waiting for them; PeakQueued the longest one
	// handler's queue has been.
	Handlers, Queued, PeakQueued int
}

func (i *informer) stats() Stats {
	objects, bytes := i.store.size()
	st := Stats{
		Kind:          i.gvk,
		Namespaces:    i.opts.Namespaces,
		Objects:       objects,
		Bytes:         bytes,
		Synced:        i.HasSynced(),
		ListRequests:  i.counters.lists.Load(),
		WatchRequests: i.counters.watches.Load(),
		Relists:       i.counters.relists.Load(),
		Events:        i.counters.events.Load(),
	}
	i.mu.Lock()
	regs := append([]*Registration(nil), i.regs...)
	i.mu.Unlock()
	st.Handlers = len(regs)
	for _, r := range regs {
		q, p := r.pending()
		st.Queued += q
		st.PeakQueued = max(st.PeakQueued, p)
	}
	return st
}
