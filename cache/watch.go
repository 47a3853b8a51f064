// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// watch opens a watch and applies its events until it ends, keeping r.rv at
// the last resourceVersion seen, so that a new watch resumes without losing
// or repeating an event.
//
// With initial set it is a WatchList (sendInitialEvents=true): the ADDED
// events up to the bookmark annotated k8s.io/initial-events-end are the
// whole state, built apart and swapped in at that bookmark; the stream
// then goes on as a plain watch. If it ends before that bookmark, the
// partial state is dropped and r.rv stays empty.
//
// It returns nil when the stream ended cleanly after a healthy run (see
// minHealthyWatch), and otherwise the error that ended it (a garbage line
// and an object that does not decode end the watch too: resuming from r.rv
// loses nothing). A 410 clears r.rv; relist is set when it came after the
// initial state, meaning that r.rv has left the server's history.
func (r *reflector) watch(ctx context.Context, initial bool) (relist bool, err error) {
	i := r.i
	opts := i.listOptions(r.ns)
	opts.AllowWatchBookmarks = true
	opts.TimeoutSeconds = watchTimeout(jitter())
	var next *state // the state being built, while initial events flow
	if initial {
		opts.SendInitialEvents = true
		opts.ResourceVersionMatch = kube.MatchNotOlderThan
		next = newState()
	} else {
		opts.ResourceVersion = r.rv
	}
	i.counters.watches.Add(1)
	started := time.Now()
	w, err := i.client.Watch(ctx, i.gvk, opts)
	if err != nil {
		return r.gone(err, !initial)
	}
	defer w.Stop()
	events := 0
	for {
		ev, err := w.Next()
		if err != nil {
			if errors.Is(err, io.EOF) && next == nil {
				if events == 0 && time.Since(started) < minHealthyWatch {
					return false, errShortWatch
				}
				return false, nil
			}
			if errors.Is(err, io.EOF) {
				err = errors.New("WatchList stream ended before the initial-events-end bookmark")
			}
			return r.gone(err, next == nil)
		}
		events++
		if ev.Type == kube.Bookmark {
			if next != nil && ev.InitialEventsEnd {
				i.replace(next, r.ns, !r.relisting)
				next = nil
				r.relisting = true
			}
			if next == nil && ev.ResourceVersion != "" {
				r.rv = ev.ResourceVersion
			}
			continue
		}
		obj, size, err := i.decode(ev.Object)
		if err != nil {
			return false, err
		}
		i.counters.events.Add(1)
		if next != nil {
			if ev.Type != kube.Deleted {
				next.add(obj, size)
			}
			continue
		}
		i.applyEvent(ev.Type, obj, size)
		r.rv = obj.GetObjectMeta().ResourceVersion
	}
}

// gone clears r.rv when err is a 410, so that the reflector relists, at
// once if now is set.
func (r *reflector) gone(err error, now bool) (relist bool, _ error) {
	if !kube.IsGone(err) {
		return false, err
	}
	r.rv = ""
	return now, err
}
