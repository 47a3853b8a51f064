// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// This file holds the faults of a server that answers and then misbehaves
// in the body of its answer: a list that never ends, a watch that never
// says anything.

// streamFault is how a streamRule answers.
type streamFault int

const (
	// endless answers a list, or the initial events of a WatchList, that
	// never end.
	endless streamFault = iota
	// silent answers a watch with its headers and nothing else.
	silent
)

// streamRule answers the requests its match accepts as fault says.
type streamRule struct {
	match func(RequestInfo) bool
	fault streamFault
}

// EndlessLists answers every list that match accepts (every list when
// match is nil), and every watch it accepts that asks for the initial
// events (sendInitialEvents=true), with an answer that never ends: the
// list's items, or ADDED events, of ConfigMap-shaped objects of about
// 1 KiB named endless-N in the request's namespace (or "default"), until
// the client goes away or the server is closed, until the returned
// function is called for requests that come after. The answer is written
// as fast as the client reads it, never ahead.
func (s *Server) EndlessLists(match func(RequestInfo) bool) (undo func()) {
	return s.addStreamRule(&streamRule{match: match, fault: endless})
}

// SilenceWatches answers every watch that match accepts (every watch
// when match is nil) with 200 and its headers, flushed, and then nothing:
// no event, no bookmark, no end at timeoutSeconds, until the client goes
// away or the server is closed, as a server (or a proxy in the way) that
// hangs would. The returned function stops it for watches that come
// after; those already answered stay silent.
func (s *Server) SilenceWatches(match func(RequestInfo) bool) (undo func()) {
	return s.addStreamRule(&streamRule{match: match, fault: silent})
}

func (s *Server) addStreamRule(rule *streamRule) (undo func()) {
	s.withLock(func() { s.streams = append(s.streams, rule) })
	return func() {
		s.withLock(func() {
			if i := slices.Index(s.streams, rule); i >= 0 {
				s.streams = slices.Delete(slices.Clip(s.streams), i, i+1)
			}
		})
	}
}

// serveStreamFault answers r as the first stream rule that applies says,
// and reports whether one did. Matchers run without the server's lock.
func (s *Server) serveStreamFault(w http.ResponseWriter, r *http.Request, info RequestInfo) bool {
	var rules []*streamRule
	s.withLock(func() { rules = slices.Clone(s.streams) })
	initialEvents := queryBool(r.URL.Query(), "sendInitialEvents")
	for _, rule := range rules {
		switch {
		case rule.match != nil && !rule.match(info):
		case rule.fault == endless && (info.Verb == "list" || info.Verb == "watch" && initialEvents):
			s.serveEndless(w, r, info)
			return true
		case rule.fault == silent && info.Verb == "watch":
			s.serveSilent(w, r)
			return true
		}
	}
	return false
}

// serveEndless writes a list, or ADDED events, without end.
func (s *Server) serveEndless(w http.ResponseWriter, r *http.Request, info RequestInfo) {
	ns := info.Namespace
	if ns == "" {
		ns = "default"
	}
	var rv uint64
	s.withLock(func() { rv = s.rv })
	watch := info.Verb == "watch"
	var buf bytes.Buffer
	if !watch {
		fmt.Fprintf(&buf, `{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[`, rv)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	data := strings.Repeat("x", 1<<10)
	for n := 0; ; n++ {
		obj := fmt.Sprintf(`{"metadata":{"name":"endless-%d","namespace":"%s","resourceVersion":"%d"},"data":{"x":"%s"}}`, n, ns, rv, data)
		switch {
		case watch:
			fmt.Fprintf(&buf, `{"type":"ADDED","object":%s}`+"\n", obj)
		case n > 0:
			buf.WriteString("," + obj)
		default:
			buf.WriteString(obj)
		}
		if buf.Len() < 32<<10 {
			continue
		}
		if _, err := w.Write(buf.Bytes()); err != nil || rc.Flush() != nil {
			return
		}
		buf.Reset()
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		default:
		}
	}
}

// serveSilent answers a watch with its headers and then nothing.
func (s *Server) serveSilent(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = http.NewResponseController(w).Flush()
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}
