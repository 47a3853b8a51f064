// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/faults"
)

// This file is fault injection and observation for tests: failing and
// delaying requests, cutting watches, writing garbage into them, compacting
// the history, and counting requests.

// FailNext makes the next n requests that match accepts (every request
// when match is nil) fail with err, written as a Status with err's code; a
// non-zero err.RetryAfter is sent as the Retry-After header (rounded up to
// seconds) and details.retryAfterSeconds. Rules apply in the order they
// were added; a request consumes at most one. Requests refused by
// authentication are not counted against n. match runs without the
// server's lock held, so it may call the Server's methods.
func (s *Server) FailNext(n int, match func(RequestInfo) bool, err *kube.StatusError) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures.Add(n, match, err)
}

// Delay holds every request that match accepts (every request when match
// is nil) for d before serving it, until the returned function is called.
// The wait uses a timer, so inside a synctest bubble it takes no real
// time; a request whose client goes away stops waiting. match runs without
// the server's lock held, so it may call the Server's methods.
func (s *Server) Delay(match func(RequestInfo) bool, d time.Duration) (undo func()) {
	s.mu.Lock()
	rule := s.delays.Add(match, d)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.delays.Remove(rule)
	}
}

// injectFaults delays and fails r as the rules say. The matchers run
// without the server's lock held, so a matcher may call any method of the
// Server (Count, FailNext, ...); a rule is consumed under the lock, and one
// that another request used up meanwhile is passed over.
func (s *Server) injectFaults(r *http.Request, info RequestInfo) *kube.StatusError {
	var delays faults.Delays[RequestInfo]
	s.withLock(func() { delays = s.delays.Clone() })
	delays.Wait(r.Context(), s.done, info)
	// The failures in force once the delay is over: a rule added while
	// the request waited applies to it.
	var failures faults.Failures[RequestInfo]
	s.withLock(func() { failures = s.failures.Clone() })
	return failures.First(info, s.takeFailure)
}

// takeFailure takes one use of f (faults.Failures.Take).
func (s *Server) takeFailure(f *faults.Failure[RequestInfo]) *kube.StatusError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failures.Take(f)
}

// CutWatches ends every open watch now, as a server restart or a load
// balancer would: each stream ends cleanly after the events already
// queued for it.
func (s *Server) CutWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.cols {
		for w := range c.watchers {
			s.stopWatcherLocked(w)
		}
	}
}

// InjectWatchGarbage writes line (and a newline) into every open watch
// stream, after the events already queued, to test how clients survive a
// corrupt stream.
func (s *Server) InjectWatchGarbage(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.cols {
		for w := range c.watchers {
			w.queue = append(w.queue, watchItem{garbage: []byte(line)})
			select {
			case w.notify <- struct{}{}:
			default:
			}
		}
	}
}

// Compact drops the event history of every resource, as etcd compaction
// and a watch cache restart do: from now on a watch or an Exact list from
// an older resourceVersion, and a continue token of an older list, answer
// 410 Expired. Open watches are not affected.
func (s *Server) Compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.cols {
		c.compact(s.rv)
	}
}

// ExpireWatches makes every watch end in 410 Expired as soon as it can,
// until undo is called: a server whose history is always too short, an
// etcd that compacts under every watch. A watch from a resourceVersion (or
// from now) gets the ERROR event with the 410 Status as its only line; a
// watch that starts with the state (sendInitialEvents, or no
// resourceVersion) sends its initial events (and the initial-events-end
// bookmark) first. Watches already open are not
// affected (see [Server.CutWatches]).
func (s *Server) ExpireWatches() (undo func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expiring++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.expiring--
		})
	}
}

// count records a request.
func (s *Server) count(info RequestInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[info.String()]++
}

// Counts returns how many requests the server received, keyed as
// [RequestInfo.String] makes them: "list configmaps", "watch
// leases.coordination.k8s.io", "update deployments.apps/status", "get
// /apis". The map is a copy.
func (s *Server) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.counts)
}

// Count returns how many requests of verb on resource (as keyed by
// [Server.Counts]) the server received.
func (s *Server) Count(verb, resource string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[verb+" "+resource]
}

// ResetCounts sets every count back to zero.
func (s *Server) ResetCounts() {
	s.asked.Reset()
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.counts)
}
