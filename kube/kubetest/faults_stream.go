// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/faults"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/requestinfo"
)

// This file puts in force the faults of a server that answers and then
// misbehaves in the body of its answer (internal/faults).

// EndlessLists answers every list that match accepts (every list when
// match is nil), and every watch it accepts that asks for the initial
// events (sendInitialEvents=true), with an answer that never ends: the
// list's items, or ADDED events, of ConfigMap-shaped objects of about
// 1 KiB named endless-N in the request's namespace (or "default"), until
// the client goes away or the server is closed, until the returned
// function is called for requests that come after. The answer is written
// as fast as the client reads it, never ahead.
func (s *Server) EndlessLists(match func(RequestInfo) bool) (undo func()) {
	return s.addStreamRule(match, faults.Endless)
}

// SilenceWatches answers every watch that match accepts (every watch
// when match is nil) with 200 and its headers, flushed, and then nothing:
// no event, no bookmark, no end at timeoutSeconds, until the client goes
// away or the server is closed, as a server (or a proxy in the way) that
// hangs would. The returned function stops it for watches that come
// after; those already answered stay silent.
func (s *Server) SilenceWatches(match func(RequestInfo) bool) (undo func()) {
	return s.addStreamRule(match, faults.Silent)
}

func (s *Server) addStreamRule(match func(RequestInfo) bool, fault faults.Fault) (undo func()) {
	var rule *faults.Rule[RequestInfo]
	s.withLock(func() { rule = s.streams.Add(match, fault) })
	return func() { s.withLock(func() { s.streams.Remove(rule) }) }
}

// serveStreamFault answers r as the first stream rule that applies says,
// and reports whether one did. Matchers run without the server's lock.
func (s *Server) serveStreamFault(w http.ResponseWriter, r *http.Request, info RequestInfo) bool {
	var rules faults.Rules[RequestInfo]
	s.withLock(func() { rules = s.streams.Clone() })
	return rules.Serve(w, r, info, faults.Request{Verb: info.Verb, Namespace: info.Namespace,
		InitialEvents: requestinfo.QueryBool(r.URL.Query(), "sendInitialEvents"), Done: s.done,
		RV: func() (rv uint64) {
			s.withLock(func() { rv = s.rv })
			return rv
		}})
}
