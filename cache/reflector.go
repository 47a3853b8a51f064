// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/kubeloop/kubeloop/internal/wait"
	"github.com/kubeloop/kubeloop/kube"
)

// The reflector reads through a listerWatcher and writes into a sink, and
// knows nothing else of the informer: client-go's ListerWatcher and
// Store, narrowed to what a reflector does. An informer gives each of its
// reflectors (one per namespace, or one) a listWatch (decode.go) and an
// nsSink (store.go) for its namespace.

// listerWatcher is where a reflector reads: the lists and watches of one
// kind in one namespace (or all), the objects decoded and prepared for
// the store. The reflector sets the options of the request (resource
// version, paging, WatchList); the listerWatcher adds the scope (namespace,
// selectors, metadata only).
type listerWatcher interface {
	// list reads one list request's answer (one page when opts.Limit is
	// set), handing each object to each as it is decoded, and returns
	// the list's metadata (resourceVersion, continue token).
	list(ctx context.Context, opts kube.ListOptions, each func(obj kube.Object, size int32)) (kube.ListMeta, error)
	// watch opens a watch.
	watch(ctx context.Context, opts kube.ListOptions) (eventStream, error)
}

// eventStream is an open watch, read by one goroutine.
type eventStream interface {
	// next returns the next event. It returns io.EOF when the server
	// ended the stream cleanly, and an error (a [*kube.StatusError] for
	// an ERROR event, [kube.IsGone] for a 410) when it ended otherwise
	// or the event's object does not decode.
	next() (event, error)
	// stop ends the stream and releases its connection.
	stop()
}

// event is one event of a watch, its object decoded.
type event struct {
	typ kube.EventType
	// obj is the object of an ADDED, MODIFIED or DELETED event, ready
	// for the store; size approximates its bytes (the JSON it came from).
	obj  kube.Object
	size int32
	// rv is a bookmark's resourceVersion; initialEnd marks the bookmark
	// that ends the initial events of a WatchList.
	rv         string
	initialEnd bool
}

// sink is where a reflector writes: the store, and whoever must hear of
// its changes. The reflector calls it from its one goroutine.
type sink interface {
	// newState returns an empty state, for the reflector to build a whole
	// state read (a list, or the initial events of a WatchList) into,
	// apart from the sink.
	newState() *state
	// replace swaps in next, a whole state read, which the sink then
	// owns. initial is set for the reflector's first state.
	replace(next *state, initial bool)
	// apply applies one watch event: ADDED, MODIFIED or DELETED.
	apply(typ kube.EventType, obj kube.Object, size int32)
}

// readStats are what an informer's reflectors report as they read, for
// [Stats] and [NotSyncedError]; shared by the informer's reflectors.
type readStats struct {
	lists, watches, relists, events atomic.Uint64
	// shardDropped counts the objects a server that ignores the shard
	// selector sent, dropped on the client.
	shardDropped atomic.Uint64
	// shardIgnored is set once a list came back without the shardInfo
	// that says the server applied the selector (logged once).
	shardIgnored atomic.Bool
	// lastErr is the last list or watch failure, cleared by a success.
	lastErr atomic.Pointer[error]
}

// reflector keeps a sink equal to the state a listerWatcher serves. It
// belongs to one goroutine (the one that calls run), so its fields need
// no lock.
//
// The loop:
//  1. With no resourceVersion to resume from (at start, and after a 410),
//     read the whole state: a list (one page, or several), or a WatchList
//     stream. The state is built apart from the sink and swapped in whole
//     (sink.replace).
//  2. Watch from the last resourceVersion seen (an event's or a
//     bookmark's), applying each event (sink.apply). When the watch ends,
//     for whatever reason, resume from there; only a 410 (the version has
//     left the server's history) makes the reflector read the whole state
//     again: one relist per 410.
//  3. Wait a backoff (see backoff) after each failure: a request that
//     failed, a stream that broke or carried garbage, a 410 (from a list
//     or a watch), a watch closed for staying silent past its
//     timeoutSeconds and watchSilenceMargin, and a
//     watch that ended within a second having delivered nothing (a server that closes every watch at once must
//     not be hammered). So consecutive relists are spaced as other
//     retries are, 0.4-0.8s for the first after two quiet minutes, growing
//     to 15-30s: a server whose every watch ends in 410 gets at most 8
//     whole-state reads a minute from an informer, not one per request
//     the client's rate limit allows.
type reflector struct {
	// lw, sink, log, stats, pageSize, watchList, failed and kind are
	// set by its maker.
	lw    listerWatcher
	sink  sink
	log   *slog.Logger
	stats *readStats
	// pageSize is the limit of each page of a list; zero lists all in one.
	pageSize int64
	// watchList is cleared for good when the server refuses WatchList.
	watchList bool
	// failed, when set, is told of each failure of a list or a watch,
	// with kind.
	failed WatchErrorHandler
	kind   kube.GroupVersionKind
	// progress is where the reflector reports each resourceVersion it
	// applied, under a mark it holds while it runs (scope is its
	// namespace, "" for all); nil reports nowhere.
	progress *progress
	scope    string
	mark     *mark

	// rv is the resourceVersion to resume from; empty means read the
	// whole state again.
	rv string
	// relisting is set once the first state has been read: later reads
	// count as relists.
	relisting bool
	b         backoff
}

// minHealthyWatch is how long a watch that delivered nothing must last for
// its end not to count as a failure.
const minHealthyWatch = time.Second

// errShortWatch ends a watch that closed at once without an event.
var errShortWatch = errors.New("watch closed at once without an event")

// run reads until ctx is done.
func (r *reflector) run(ctx context.Context) {
	r.mark = r.progress.join(r.scope)
	defer r.progress.leave(r.mark)
	for {
		err := r.step(ctx)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			r.stats.lastErr.Store(nil)
			continue
		}
		r.failure(err)
		d := r.b.next(time.Now(), jitter())
		if r.rv == "" && kube.IsGone(err) {
			r.log.Info("resourceVersion too old; relisting", "err", err, "delay", d)
		} else {
			r.log.Warn("list or watch failed; retrying", "err", err, "rv", r.rv, "delay", d)
		}
		if !wait.Sleep(ctx, d) {
			return
		}
	}
}

// failure records err, a failed list or watch, as the last failure, and
// tells r.failed of it.
func (r *reflector) failure(err error) {
	r.stats.lastErr.Store(&err)
	if r.failed != nil {
		r.failed(r.kind, err)
	}
}

// step reads the whole state if needed, then watches until the watch ends.
// It returns the error that ended it, nil for a healthy end.
func (r *reflector) step(ctx context.Context) error {
	if r.rv == "" {
		if r.relisting {
			r.stats.relists.Add(1)
		}
		if r.watchList {
			err := r.watch(ctx, true)
			if !refusesWatchList(err) {
				return err
			}
			r.log.Info("server refuses WatchList; using list and watch", "err", err)
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
	opts := kube.ListOptions{AllowWatchBookmarks: true, TimeoutSeconds: watchTimeout(jitter())}
	var next *state // the state being built, while initial events flow
	if initial {
		opts.SendInitialEvents = true
		opts.ResourceVersionMatch = kube.MatchNotOlderThan
		next = r.sink.newState()
	} else {
		opts.ResourceVersion = r.rv
	}
	r.stats.watches.Add(1)
	started := time.Now()
	// The watch's context is canceled when it stays silent (its headers
	// not come, or no event since the last) past its timeout and the
	// margin: wctx is then done and ctx is not.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	silence := time.Duration(opts.TimeoutSeconds)*time.Second + watchSilenceMargin
	quiet := time.AfterFunc(silence, cancel)
	defer quiet.Stop()
	w, err := r.lw.watch(wctx, opts)
	if wctx.Err() != nil && ctx.Err() == nil {
		err = errSilentWatch // what the watch met is its consequence
	}
	if err != nil {
		return r.gone(err)
	}
	defer w.stop()
	events := 0
	for {
		ev, err := w.next()
		switch {
		case wctx.Err() != nil && ctx.Err() == nil:
			err = errSilentWatch
		case err == nil && ctx.Err() != nil:
			err = ctx.Err() // stopped: read no further (a probe's WatchList may be long)
		case err == nil:
			quiet.Reset(silence)
		}
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
		if ev.typ == kube.Bookmark {
			if next != nil && ev.initialEnd {
				r.sink.replace(next, !r.relisting)
				next = nil
				r.relisting = true
			}
			if next == nil && ev.rv != "" {
				r.read(ev.rv)
			}
			continue
		}
		r.stats.events.Add(1)
		if next != nil {
			if ev.typ != kube.Deleted {
				next.add(ev.obj, ev.size)
			}
			continue
		}
		r.sink.apply(ev.typ, ev.obj, ev.size)
		r.read(ev.obj.GetObjectMeta().ResourceVersion)
	}
}

// list reads the whole state with a list (one page unless r.pageSize is
// set) into a new state and swaps it into the sink. Besides the state
// being built it holds one page's objects as the store keeps them (see
// page), never a page's JSON. A failed page is asked for again, with the
// same continue token, after a backoff; a 410 (the continue token
// expired) fails the whole list, so that it starts again from the first
// page.
func (r *reflector) list(ctx context.Context) error {
	next := r.sink.newState()
	opts := kube.ListOptions{Limit: r.pageSize}
	for {
		meta, err := r.page(ctx, next, opts)
		if err != nil {
			if kube.IsGone(err) || ctx.Err() != nil {
				return err
			}
			r.failure(err)
			d := r.b.next(time.Now(), jitter())
			r.log.Warn("list page failed; retrying", "err", err, "delay", d)
			if !wait.Sleep(ctx, d) {
				return ctx.Err()
			}
			continue
		}
		if meta.Continue == "" {
			r.sink.replace(next, !r.relisting)
			r.relisting = true
			r.read(meta.ResourceVersion)
			return nil
		}
		opts.Continue = meta.Continue
	}
}

// page reads one page into next and returns its list metadata. The
// page's objects go into next only once the whole page has been read: a
// page cut midway and asked for again (without a continue token, at a
// newer resourceVersion) must not leave objects the second answer lacks.
// Each object is packed as it arrives (in a compact store), so that a page
// of the whole state is held packed, not decoded.
func (r *reflector) page(ctx context.Context, next *state, opts kube.ListOptions) (kube.ListMeta, error) {
	r.stats.lists.Add(1)
	type held struct {
		v    any
		key  kube.Key
		size int32
	}
	var objs []held
	meta, err := r.lw.list(ctx, opts, func(obj kube.Object, size int32) {
		v, key, size := next.codec.pack(obj, size)
		objs = append(objs, held{v, key, size})
	})
	if err != nil {
		return meta, err
	}
	for _, o := range objs {
		next.addPacked(o.v, o.key, o.size)
	}
	return meta, nil
}

// watchSilenceMargin is how long past its timeoutSeconds a watch may
// stay silent (no event, no bookmark) before the reflector closes it and
// opens another from the last resourceVersion: a server ends a watch at
// its timeoutSeconds (kube-apiserver sends a bookmark 2 s before, and
// about every minute with allowWatchBookmarks), so a healthy watch is
// never silent that long, and one that is has a server or a proxy that
// hangs.
const watchSilenceMargin = time.Minute

// errSilentWatch ends a watch that stayed silent past its timeoutSeconds
// and watchSilenceMargin.
var errSilentWatch = errors.New("watch silent past its timeoutSeconds and a minute: reopening it")

// read records that the sink holds everything up to rv: the version to
// resume from, and the reflector's progress.
func (r *reflector) read(rv string) {
	r.rv = rv
	r.progress.advance(r.mark, rv)
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

// DefaultSyncPeriod is the resync period of informers that do not set
// one, as controller-runtime's default SyncPeriod. Each period is drawn
// anew within ±10% of it.
const DefaultSyncPeriod = 10 * time.Hour

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

// jitter returns a random number in [0, 1) for the functions above.
func jitter() float64 { return rand.Float64() }
