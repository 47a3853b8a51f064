// SPDX-License-Identifier: Apache-2.0

// This file holds the faults of a server that answers and then
// misbehaves in the body of its answer: a list that never ends
// ([Endless], Server.EndlessLists) and a watch that never says anything
// ([Silent], Server.SilenceWatches). An endless answer is written as fast
// as the client reads it, never ahead: at most 32 KiB are buffered
// between writes.

package faults

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Fault is how a rule answers.
type Fault int

const (
	// Endless answers a list, or the initial events of a WatchList, that
	// never end.
	Endless Fault = iota
	// Silent answers a watch with its headers and nothing else.
	Silent
)

// Rule answers the requests its match accepts (every request when match
// is nil) as its fault says. I is the server's request description.
type Rule[I any] struct {
	match func(I) bool
	fault Fault
}

// Rules are the faults in force, in the order they were added. The zero
// value holds none. Rules is not safe for concurrent use: its owner
// locks around Add, Remove and Clone.
type Rules[I any] struct{ list []*Rule[I] }

// Add puts a rule in force and returns it, for Remove.
func (rs *Rules[I]) Add(match func(I) bool, fault Fault) *Rule[I] {
	rule := &Rule[I]{match: match, fault: fault}
	rs.list = append(rs.list, rule)
	return rule
}

// Remove takes rule out of force; requests already answered by it go on.
func (rs *Rules[I]) Remove(rule *Rule[I]) {
	if i := slices.Index(rs.list, rule); i >= 0 {
		rs.list = slices.Delete(slices.Clip(rs.list), i, i+1)
	}
}

// Clone returns the rules in force now, for Serve to use without the
// owner's lock.
func (rs *Rules[I]) Clone() Rules[I] { return Rules[I]{list: slices.Clone(rs.list)} }

// Request is what Serve needs to know of a request besides its match.
type Request struct {
	// Verb is the request's verb (list, watch, ...).
	Verb string
	// InitialEvents says a watch asks for them (sendInitialEvents=true).
	InitialEvents bool
	// Namespace is the request's namespace, "" for none.
	Namespace string
	// RV returns the server's current resourceVersion, read when an
	// endless answer starts.
	RV func() uint64
	// Done is closed when the server closes.
	Done <-chan struct{}
}

// Serve answers r as the first rule that applies to info says, and
// reports whether one did. It blocks until that answer ends.
func (rs Rules[I]) Serve(w http.ResponseWriter, r *http.Request, info I, req Request) bool {
	for _, rule := range rs.list {
		switch {
		case rule.match != nil && !rule.match(info):
		case rule.fault == Endless && (req.Verb == "list" || req.Verb == "watch" && req.InitialEvents):
			serveEndless(w, r, req)
			return true
		case rule.fault == Silent && req.Verb == "watch":
			serveSilent(w, r, req.Done)
			return true
		}
	}
	return false
}

// serveEndless writes a list, or ADDED events, of ConfigMap-shaped
// objects of about 1 KiB named endless-N in the request's namespace (or
// "default"), without end.
func serveEndless(w http.ResponseWriter, r *http.Request, req Request) {
	ns := req.Namespace
	if ns == "" {
		ns = "default"
	}
	rv := req.RV()
	watch := req.Verb == "watch"
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
		case <-req.Done:
			return
		default:
		}
	}
}

// serveSilent answers a watch with its headers and then nothing.
func serveSilent(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = http.NewResponseController(w).Flush()
	select {
	case <-r.Context().Done():
	case <-done:
	}
}
