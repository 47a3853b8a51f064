// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
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
//     the reflector read the whole state again: one relist per 410.
//  3. Wait a backoff (see backoff) after each failure: a request that
//     failed, a stream that broke or carried garbage, a 410 (from a list
//     or a watch), and a watch that ended within a second having
//     delivered nothing (a server that closes every watch at once must
//     not be hammered). So consecutive relists are spaced as other
//     retries are, 0.4-0.8s for the first after two quiet minutes, growing
//     to 15-30s: a server whose every watch ends in 410 gets at most 8
//     whole-state reads a minute from an informer, not one per request
//     the client's rate limit allows.
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
		err := r.step(ctx)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			r.i.lastErr.Store(nil)
			continue
		}
		r.i.lastErr.Store(&err)
		d := r.b.next(time.Now(), jitter())
		if r.rv == "" && kube.IsGone(err) {
			r.i.log.Info("resourceVersion too old; relisting", "err", err, "delay", d)
		} else {
			r.i.log.Warn("list or watch failed; retrying", "err", err, "rv", r.rv, "delay", d)
		}
		if !sleep(ctx, d) {
			return
		}
	}
}

// step reads the whole state if needed, then watches until the watch ends.
// It returns the error that ended it, nil for a healthy end.
func (r *reflector) step(ctx context.Context) error {
	if r.rv == "" {
		if r.relisting {
			r.i.counters.relists.Add(1)
		}
		if r.watchList {
			err := r.watch(ctx, true)
			if !refusesWatchList(err) {
				return err
			}
			r.i.log.Info("server refuses WatchList; using list and watch", "err", err)
			r.watchList = false
		}
		if err := r.list(ctx); err != nil {
			return err
		}
	}
	return r.watch(ctx, false)
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
// loses nothing). A 410 clears r.rv, so that the next step relists.
func (r *reflector) watch(ctx context.Context, initial bool) error {
	i := r.i
	opts := i.listOptions(r.ns)
	opts.AllowWatchBookmarks = true
	opts.TimeoutSeconds = watchTimeout(jitter())
	var next *state // the state being built, while initial events flow
	if initial {
		opts.SendInitialEvents = true
		opts.ResourceVersionMatch = kube.MatchNotOlderThan
		next = newState(i.store.codec)
	} else {
		opts.ResourceVersion = r.rv
	}
	i.counters.watches.Add(1)
	started := time.Now()
	w, err := i.client.Watch(ctx, i.gvk, opts)
	if err != nil {
		return r.gone(err)
	}
	defer w.Stop()
	events := 0
	for {
		ev, err := w.Next()
		if err != nil {
			if errors.Is(err, io.EOF) && next == nil {
				if events == 0 && time.Since(started) < minHealthyWatch {
					return errShortWatch
				}
				return nil
			}
			if errors.Is(err, io.EOF) {
				err = errors.New("WatchList stream ended before the initial-events-end bookmark")
			}
			return r.gone(err)
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
		obj, size, err := i.decode(&ev)
		if err != nil {
			return err
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

// gone clears r.rv when err is a 410, so that the reflector relists, and
// returns err.
func (r *reflector) gone(err error) error {
	if kube.IsGone(err) {
		r.rv = ""
	}
	return err
}

// Timing of the reflector, as client-go's: failed requests are retried after
// an exponential backoff from 800ms to 30s, reset once two minutes pass
// without a failure; watches ask the server to end them after a random
// 5 to 10 minutes, so that many clients do not reconnect together.
const (
	backoffInitial  = 800 * time.Millisecond
	backoffMax      = 30 * time.Second
	backoffReset    = 2 * time.Minute
	minWatchTimeout = 5 * time.Minute
)

// DefaultResyncPeriod is the resync period of informers that do not set
// one, as controller-runtime's default SyncPeriod. Each period is drawn
// anew within ±10% of it.
const DefaultResyncPeriod = 10 * time.Hour

// backoff spaces retries after failures. The zero value is ready to use.
//
// The n-th failure in a row waits a delay drawn uniformly from [d/2, d],
// with d = min(800ms·2ⁿ⁻¹, 30s) ("equal jitter": never more than the cap,
// never less than half the nominal delay, and spread even at the cap). A
// failure more than two minutes after the previous one starts again at
// 800ms.
type backoff struct {
	// failures counts failures since the last reset; it stops growing
	// once the delay reaches the cap.
	failures int
	// last is when the last failure happened; zero before the first.
	last time.Time
}

// next records a failure at now and returns how long to wait before the
// next attempt. r must be in [0, 1); it is the jitter.
func (b *backoff) next(now time.Time, r float64) time.Duration {
	if !b.last.IsZero() && now.Sub(b.last) >= backoffReset {
		b.failures = 0
	}
	b.last = now
	d := backoffInitial << b.failures
	if d >= backoffMax || d <= 0 {
		d = backoffMax
	} else {
		b.failures++
	}
	return d/2 + time.Duration(r*float64(d/2))
}

// resyncDelay returns the time to the next resync: period ±10%, with r in
// [0, 1) the jitter.
func resyncDelay(period time.Duration, r float64) time.Duration {
	return time.Duration(float64(period) * (0.9 + 0.2*r))
}

// watchTimeout returns the timeoutSeconds of a watch: [5min, 10min) with r
// in [0, 1) the jitter.
func watchTimeout(r float64) int64 {
	return int64((minWatchTimeout + time.Duration(r*float64(minWatchTimeout))) / time.Second)
}

// sleep waits d or until ctx is done, and reports whether it waited d.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// jitter returns a random number in [0, 1) for the functions above.
func jitter() float64 { return rand.Float64() }
