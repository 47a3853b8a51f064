// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// reflector keeps an informer's store equal to the server's state. It
// belongs to one goroutine (the one informer.Start runs it in), so its
// fields need no lock.
//
// The loop:
//  1. With no resourceVersion to resume from (at start, and after a 410),
//     read the whole state: a WatchList stream, or a paged list. The state
//     is built apart from the store and swapped in whole (informer.replace),
//     which tells the handlers what changed.
//  2. Watch from the last resourceVersion seen (an event's or a
//     bookmark's). When the watch ends, for whatever reason, resume from
//     there; only a 410 (the version has left the server's history) makes
//     the reflector read the whole state again, at once: one relist per
//     410.
//  3. Wait a backoff (see backoff) after each failure: a request that
//     failed, a stream that broke or carried garbage, a 410 from a list,
//     and a watch that ended within a second having delivered nothing (a
//     server that closes every watch at once must not be hammered).
type reflector struct {
	i *informer
	// ns is the namespace the reflector covers; empty for all.
	ns string
	// rv is the resourceVersion to resume from; empty means read the
	// whole state again.
	rv string
	// watchList is cleared for good when the server refuses WatchList.
	watchList bool
	// relisting is set once the first state has been read: later reads
	// count as relists.
	relisting bool
	b         backoff
}

func newReflector(i *informer, ns string) *reflector {
	return &reflector{i: i, ns: ns, watchList: !i.opts.DisableWatchList}
}

// minHealthyWatch is how long a watch that delivered nothing must last for
// its end not to count as a failure.
const minHealthyWatch = time.Second

// errShortWatch ends a watch that closed at once without an event.
var errShortWatch = errors.New("watch closed at once without an event")

func (r *reflector) run(ctx context.Context) {
	for {
		wait, err := r.step(ctx)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			r.i.lastErr.Store(nil)
			continue
		}
		r.i.lastErr.Store(&err)
		if !wait {
			r.i.log.Info("watch ended", "err", err, "rv", r.rv)
			continue
		}
		d := r.b.next(time.Now(), jitter())
		r.i.log.Warn("list or watch failed; retrying", "err", err, "rv", r.rv, "delay", d)
		if !sleep(ctx, d) {
			return
		}
	}
}

// step reads the whole state if needed, then watches until the watch ends.
// It returns the error that ended it (nil for a healthy end) and whether
// to wait a backoff before the next step.
func (r *reflector) step(ctx context.Context) (wait bool, err error) {
	if r.rv == "" {
		if r.relisting {
			r.i.counters.relists.Add(1)
		}
		if r.watchList {
			relist, err := r.watch(ctx, true)
			if refusesWatchList(err) {
				r.i.log.Info("server refuses WatchList; using list and watch", "err", err)
				r.watchList = false
				return false, err
			}
			return r.ended(relist, err)
		}
		if err := r.list(ctx); err != nil {
			return true, err
		}
	}
	return r.ended(r.watch(ctx, false))
}

// ended classifies the end of a watch: a 410 after the initial state
// relists at once, a healthy end resumes at once, anything else waits.
func (r *reflector) ended(relist bool, err error) (wait bool, _ error) {
	switch {
	case err == nil:
		return false, nil
	case relist:
		r.i.log.Info("resourceVersion too old; relisting", "err", err)
		return false, err
	}
	return true, err
}

// refusesWatchList reports whether err is the server saying it does not do
// WatchList (an old server, or the feature turned off), rather than a
// passing failure.
func refusesWatchList(err error) bool {
	se, ok := kube.AsStatusError(err)
	if !ok {
		return false
	}
	switch se.Status.Code {
	case http.StatusBadRequest, http.StatusForbidden, http.StatusMethodNotAllowed,
		http.StatusNotAcceptable, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity:
		return true
	}
	return false
}
