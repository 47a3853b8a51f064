// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"fmt"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/listopts"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/watchenc"
)

// This file serves watches: a chunked JSON stream of one event per line,
// flushed as each happens. A watch starts from the current state (initial
// ADDED events, then a bookmark annotated k8s.io/initial-events-end when
// bookmarks are allowed), or resumes after a resourceVersion from the
// history (or gets an ERROR event with a 410 Expired Status when the
// version is too old, and under [Server.ExpireWatches]). It ends on
// timeoutSeconds, when the client goes, when it falls more than
// Options.WatchBufferSize events behind, on [Server.CutWatches] and on
// [Server.Close].

// watchItem is one queued line of a watch.
type watchItem struct {
	typ string // "ADDED", "MODIFIED", "DELETED"; "" for garbage
	rec *record
	// rv, when not zero, replaces rec's resourceVersion: an object leaving
	// the watch's selection is DELETED with its previous state at the
	// event's resourceVersion.
	rv      uint64
	garbage []byte
	// due is when the item may be sent ([Server.LagWatches]); zero for
	// at once.
	due time.Time
}

// watcher is one open watch.
type watcher struct {
	res     *resource
	col     *collection
	filter  filter
	partial bool
	// table, when set, writes each event's object as a Table; only the
	// first carries the column definitions (tableHeaders).
	table        *tableWriter
	tableHeaders bool
	// after drops events up to this resourceVersion: a watch from a
	// version the server has not reached yet starts there, as the real
	// watch cache does.
	after uint64

	// queue, stopped and overflowed are guarded by Server.mu.
	queue      []watchItem
	stopped    bool
	overflowed bool
	// notify has room for one wake-up; stop is closed when the server ends
	// the watch.
	notify chan struct{}
	stop   chan struct{}
}

// itemFor turns an event into what the watcher sees of it, as the watch
// cache does for selections: an object entering the selection is ADDED, one
// leaving it DELETED.
func (w *watcher) itemFor(e *event) (watchItem, bool) {
	switch e.typ {
	case "ADDED":
		if w.filter.matches(e.obj) {
			return watchItem{typ: "ADDED", rec: e.obj}, true
		}
	case "MODIFIED":
		cur, old := w.filter.matches(e.obj), w.filter.matches(e.prev)
		switch {
		case cur && old:
			return watchItem{typ: "MODIFIED", rec: e.obj}, true
		case cur:
			return watchItem{typ: "ADDED", rec: e.obj}, true
		case old:
			return watchItem{typ: "DELETED", rec: e.prev, rv: e.rv}, true
		}
	case "DELETED":
		if w.filter.matches(e.prev) {
			return watchItem{typ: "DELETED", rec: e.obj}, true
		}
	}
	return watchItem{}, false
}

// offerLocked queues e for w, closing w when its queue is full.
func (s *Server) offerLocked(w *watcher, e *event) {
	it, ok := w.itemFor(e)
	if !ok || w.stopped || e.rv <= w.after {
		return
	}
	if len(w.queue) >= s.opts.WatchBufferSize {
		w.overflowed = true
		s.log.Warn("watch closed: client too slow", "kind", w.res.Kind, "rv", e.rv)
		s.stopWatcherLocked(w)
		return
	}
	it.due = s.dueLocked(w)
	w.queue = append(w.queue, it)
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

// stopWatcherLocked ends w: its handler returns and the stream ends.
func (s *Server) stopWatcherLocked(w *watcher) {
	if w.stopped {
		return
	}
	w.stopped = true
	close(w.stop)
	delete(w.col.watchers, w)
}

// serveWatch serves a watch: it starts it (startWatchLocked), sends what
// it starts with (writeWatchStart) and then follows the collection
// (runWatch) until the client or the server ends it.
func (s *Server) serveWatch(c *call) {
	w, o, want, serr := s.newWatcher(c)
	if serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	// Without the WatchList gate a watch from "" or "0" still starts with
	// the state, as a legacy watch does, but ends it with no bookmark.
	initialEvents := o.SendInitialEvents != nil && *o.SendInitialEvents ||
		!s.facts.WatchList && (o.RV == "" || o.RV == "0")
	var st watchStart
	s.withLock(func() { st = s.startWatchLocked(c, w, want, initialEvents) })
	if want > st.cur && initialEvents {
		apierr.Write(c.w, apierr.TooLargeRV(want, st.cur))
		return
	}
	defer s.withLock(func() { s.stopWatcherLocked(w) })
	var buf bytes.Buffer
	send := watchenc.Start(c.w, &buf)
	if !writeWatchStart(w, o, st, initialEvents, send, &buf) {
		return
	}
	s.runWatch(c, w, o, send, &buf)
}

// newWatcher reads a watch request's options and makes its watcher, not
// registered yet; want is the resourceVersion asked for.
func (s *Server) newWatcher(c *call) (w *watcher, o *listOpts, want uint64, serr *kube.StatusError) {
	o, serr = c.parseListOptions(true, s.facts.WatchList)
	if serr == nil {
		serr = s.parseShardSelector(c, o)
	}
	if serr == nil {
		want, serr = listopts.ParseRV(o.RV)
	}
	if serr == nil && c.table != nil {
		serr = c.table.err
	}
	if serr != nil {
		return nil, nil, 0, serr
	}
	w = &watcher{res: c.res, col: c.col, filter: o.filter, partial: c.partial,
		notify: make(chan struct{}, 1), stop: make(chan struct{})}
	if c.table != nil {
		w.table, w.tableHeaders = newTableWriter(c.table, c.res), true
	}
	return w, o, want, nil
}

// watchStart is what a new watch sends before it follows its collection.
type watchStart struct {
	items  []watchItem // the initial state, or the events since the version asked for
	tooOld string      // if not "": the 410 Expired message the watch ends with at once
	cur    uint64      // the server's resourceVersion when the watch began
	expire bool        // ExpireWatches: the watch ends with a 410 after its items
}

// startWatchLocked decides what w starts with, from the version want and
// sendInitialEvents, and registers w on its collection unless it ends at
// once. A want ahead of the server with initialEvents registers nothing:
// the caller answers apierr.TooLargeRV. The caller holds s.mu.
func (s *Server) startWatchLocked(c *call, w *watcher, want uint64, initialEvents bool) watchStart {
	st := watchStart{cur: s.rv}
	switch {
	case want > st.cur && initialEvents:
		return st
	case want > st.cur:
		w.after = want
	case initialEvents:
		for _, k := range c.col.keys() {
			if r := c.col.objects[k]; w.filter.matches(r) {
				st.items = append(st.items, watchItem{typ: "ADDED", rec: r})
			}
		}
	case want > 0:
		evs, ok := c.col.since(want, st.cur)
		if !ok {
			st.tooOld = fmt.Sprintf("too old resource version: %d (%d)", want, c.col.oldest(st.cur))
			break
		}
		for _, e := range evs {
			if it, ok := w.itemFor(e); ok {
				st.items = append(st.items, it)
			}
		}
	}
	st.expire = s.expiring > 0 // ExpireWatches
	if st.expire && !initialEvents && st.tooOld == "" {
		st.tooOld = watchenc.MsgTooOld
	}
	if st.tooOld == "" && !st.expire && !s.closed {
		c.col.watchers[w] = struct{}{}
	}
	return st
}

// writeWatchStart sends st: its 410 and nothing else, or its items, the
// initial-events-end bookmark asked for, and ExpireWatches' 410. It
// reports whether the watch goes on.
func writeWatchStart(w *watcher, o *listOpts, st watchStart, initialEvents bool, send func() bool, buf *bytes.Buffer) bool {
	if st.tooOld != "" {
		watchenc.Expired(buf, st.tooOld)
		send()
		return false
	}
	for _, it := range st.items {
		w.writeItem(buf, it)
		if buf.Len() >= 64<<10 && !send() { // bound the buffer of a large initial state
			return false
		}
	}
	if initialEvents && o.SendInitialEvents != nil && o.Bookmarks {
		w.writeBookmark(buf, st.cur, true)
	}
	if st.expire {
		watchenc.Expired(buf, watchenc.MsgTooOld)
	}
	return send() && !st.expire
}

// runWatch streams w's events until the watch ends.
func (s *Server) runWatch(c *call, w *watcher, o *listOpts, send func() bool, buf *bytes.Buffer) {
	interval := s.opts.BookmarkInterval
	var bookmarks, timeout <-chan time.Time
	var bookmarkTimer *time.Timer
	if o.Bookmarks {
		bookmarkTimer = time.NewTimer(interval)
		defer bookmarkTimer.Stop()
		bookmarks = bookmarkTimer.C
	}
	if o.TimeoutSeconds > 0 {
		t := time.NewTimer(time.Duration(o.TimeoutSeconds) * time.Second)
		defer t.Stop()
		timeout = t.C
	}
	// lagged fires when the first item held back (LagWatches) falls due.
	lagTimer := time.NewTimer(time.Hour)
	lagTimer.Stop()
	defer lagTimer.Stop()
	// drain writes the queued items that are due and, with bookmark and
	// none held back, a bookmark at the current resourceVersion, which no
	// queued event can be newer than.
	drain := func(bookmark bool) bool {
		var q []watchItem
		var rv uint64
		var next time.Time
		now := time.Now()
		s.withLock(func() {
			q, next = takeDueLocked(w, now)
			rv = s.rv
		})
		for _, it := range q {
			w.writeItem(buf, it)
		}
		if bookmark && next.IsZero() {
			w.writeBookmark(buf, rv, false)
		}
		if !next.IsZero() {
			lagTimer.Reset(next.Sub(now))
		}
		return send()
	}
	ctx := c.r.Context()
	for {
		select {
		case <-w.notify:
			if !drain(false) {
				return
			}
		case <-lagTimer.C:
			if !drain(false) {
				return
			}
		case <-bookmarks:
			if !drain(true) {
				return
			}
			bookmarkTimer.Reset(interval)
		case <-timeout:
			// The real watch cache sends no bookmark before the timeout
			// after an initial-events-end one.
			drain(o.Bookmarks && (o.SendInitialEvents == nil || !*o.SendInitialEvents))
			return
		case <-w.stop:
			var overflowed bool
			s.withLock(func() { overflowed = w.overflowed })
			if !overflowed {
				drain(false) // events queued before the end, such as a CRD's last deletes
			}
			return
		case <-ctx.Done():
			return
		case <-s.done:
			return
		}
	}
}

// writeItem appends one event line.
func (w *watcher) writeItem(buf *bytes.Buffer, it watchItem) {
	if it.typ == "" {
		buf.Write(it.garbage)
		buf.WriteByte('\n')
		return
	}
	raw := it.rec.raw
	if it.rv != 0 && it.rv != it.rec.rv {
		o := mustDecode(raw)
		unstructured.Metadata(o)["resourceVersion"] = formatRV(it.rv)
		raw = encode.Object(o)
	}
	raw, err := w.res.Conversion.ReadRaw(raw, w.res.APIVersion(), false)
	switch {
	case err != nil:
		watchenc.Event(buf, "ERROR", encode.Status(&err.Status)) // a conversion that failed
	case w.table != nil:
		watchenc.Event(buf, it.typ, w.table.One(raw, w.tableHeaders))
		w.tableHeaders = false
	default:
		watchenc.Event(buf, it.typ, renderAs(raw, w.res, w.partial))
	}
}

// writeBookmark appends a BOOKMARK (watchenc.Bookmark, a Table's for a
// Table watch).
func (w *watcher) writeBookmark(buf *bytes.Buffer, rv uint64, initialEnd bool) {
	switch {
	case w.table != nil:
		w.writeTableBookmark(buf, rv, initialEnd)
	case w.partial:
		watchenc.Bookmark(buf, "PartialObjectMetadata", "meta.k8s.io/v1", rv, initialEnd)
	default:
		watchenc.Bookmark(buf, w.res.Kind, w.res.APIVersion(), rv, initialEnd)
	}
}
