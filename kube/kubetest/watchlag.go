// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/faults"
)

// This file is the watch-lag fault: a watch that delivers each event some
// time after it happened, as a busy watch cache or a slow network does,
// so that a client's cache lags behind the writes the server answered.

// LagWatches makes every watch of resource (a plural such as
// "configmaps"; "" for all) deliver each event a random time in [least,
// most] after it happened, keeping the order of events, until the returned
// function is called. A bookmark is not sent while events are held back,
// so it never claims a version the watch has not delivered. Lists, gets
// and writes are not delayed. The lag uses timers, so inside a synctest
// bubble it takes no real time.
func (s *Server) LagWatches(resource string, least, most time.Duration) (undo func()) {
	rule := &faults.Lag{Resource: resource, Min: least, Max: max(least, most)}
	s.mu.Lock()
	s.lag = rule
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.lag == rule {
			s.lag = nil
		}
	}
}

// dueLocked returns when w may deliver an event that happens now: never
// before the event queued ahead of it.
func (s *Server) dueLocked(w *watcher) time.Time {
	d, ok := s.lag.Delay(w.res.Plural)
	if !ok {
		return time.Time{}
	}
	due := time.Now().Add(d)
	if n := len(w.queue); n > 0 && w.queue[n-1].due.After(due) {
		due = w.queue[n-1].due
	}
	return due
}

// takeDueLocked removes from w's queue the items due by now and returns
// them, with when the next one falls due (zero when none is left).
func takeDueLocked(w *watcher, now time.Time) (due []watchItem, next time.Time) {
	n := 0
	for n < len(w.queue) && !w.queue[n].due.After(now) {
		n++
	}
	due = w.queue[:n:n]
	w.queue = w.queue[n:]
	if len(w.queue) > 0 {
		next = w.queue[0].due
	} else {
		w.queue = nil
	}
	return due, next
}
