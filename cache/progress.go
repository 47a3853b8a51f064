// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"strconv"
	"sync"
)

// progress is how far an informer's reflectors have read the server's
// history: the last resourceVersion each applied (an event's, a
// bookmark's, a whole state's). Reads that wait for their own writes
// (writes.go) ask it whether a version has been read, and wait on it for
// the next advance.
//
// resourceVersions are compared as decimal integers, as KEP-5504 (stable
// in Kubernetes 1.35) says they may be; a reflector that reads one that is
// not marks itself opaque, and no wait is answered through it.
type progress struct {
	mu sync.Mutex
	// marks are the running reflectors', each added when its reflector
	// starts and removed when it ends.
	marks map[*mark]struct{}
	// wake, when not nil, is closed at the next advance; a waiter makes
	// it, so that reflectors close nothing while nobody waits.
	wake chan struct{}
	// last is the last resourceVersion any reflector read, for [Stats].
	last string
}

// mark is one reflector's place in the history.
type mark struct {
	// ns is the namespace the reflector reads, "" for all.
	ns string
	// rv is the last resourceVersion the reflector applied; 0 before its
	// first state.
	rv uint64
	// opaque is set once the reflector read a resourceVersion that is not
	// a decimal integer.
	opaque bool
}

// join adds the mark of a reflector of namespace ns ("" for all). Nil
// progress tracks nothing.
func (p *progress) join(ns string) *mark {
	if p == nil {
		return nil
	}
	m := &mark{ns: ns}
	p.mu.Lock()
	if p.marks == nil {
		p.marks = map[*mark]struct{}{}
	}
	p.marks[m] = struct{}{}
	p.mu.Unlock()
	return m
}

// leave removes m, of a reflector that ended.
func (p *progress) leave(m *mark) {
	if p == nil {
		return
	}
	p.mu.Lock()
	delete(p.marks, m)
	p.mu.Unlock()
}

// advance records that m's reflector applied everything up to rv, and
// wakes the waiters. It costs a parse and a lock.
func (p *progress) advance(m *mark, rv string) {
	if p == nil || rv == "" {
		return
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	p.mu.Lock()
	if err != nil {
		m.opaque = true
	} else {
		m.rv = max(m.rv, n)
	}
	p.last = rv
	if p.wake != nil {
		close(p.wake)
		p.wake = nil
	}
	p.mu.Unlock()
}

// next returns a channel closed at the next advance. Take it before
// checking a condition, then wait on it: an advance in between is not
// missed.
func (p *progress) next() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.wake == nil {
		p.wake = make(chan struct{})
	}
	return p.wake
}

// seen reports whether every reflector that reads namespace ns ("" for
// every reflector) has applied rv, and, when not, whether it can still
// tell (false once such a reflector read a version that is not a decimal
// integer). With no reflector of ns running, nothing has been seen.
func (p *progress) seen(ns string, rv uint64) (ok, comparable bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	found := false
	for m := range p.marks {
		if ns != "" && m.ns != "" && m.ns != ns {
			continue
		}
		if m.opaque {
			return false, false
		}
		if m.rv < rv {
			return false, true
		}
		found = true
	}
	return found, true
}

// lastRead returns the last resourceVersion a reflector read.
func (p *progress) lastRead() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}
