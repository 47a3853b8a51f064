// SPDX-License-Identifier: Apache-2.0

package faults

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// Failure fails the next n requests its match accepts (every request
// when match is nil) with err.
type Failure[I any] struct {
	n     int
	match func(I) bool
	err   *kube.StatusError
}

// Failures are the failure rules in force, in the order they were added;
// a request uses at most one. The zero value holds none.
type Failures[I any] struct{ list []*Failure[I] }

// Add puts in force a rule that fails the next n requests match accepts
// with err.
func (fs *Failures[I]) Add(n int, match func(I) bool, err *kube.StatusError) {
	fs.list = append(fs.list, &Failure[I]{n: n, match: match, err: err})
}

// Clone returns the rules in force now, for First.
func (fs *Failures[I]) Clone() Failures[I] { return Failures[I]{list: slices.Clone(fs.list)} }

// First offers take, in order, each rule whose match accepts info,
// matching each only when the ones before it gave no error, and returns
// the first error take gives; nil when none does.
func (fs Failures[I]) First(info I, take func(*Failure[I]) *kube.StatusError) *kube.StatusError {
	for _, f := range fs.list {
		if f.match != nil && !f.match(info) {
			continue
		}
		if err := take(f); err != nil {
			return err
		}
	}
	return nil
}

// Take takes one use of f and returns a copy of its error, or nil when f
// is used up or removed.
func (fs *Failures[I]) Take(f *Failure[I]) *kube.StatusError {
	i := slices.Index(fs.list, f)
	if i < 0 {
		return nil
	}
	f.n--
	if f.n == 0 {
		fs.list = slices.Delete(slices.Clip(fs.list), i, i+1)
	}
	e := *f.err
	if e.Status.Details != nil {
		d := *e.Status.Details
		e.Status.Details = &d
	}
	return &e
}

// Delay holds the requests its match accepts (every request when match
// is nil) for d.
type Delay[I any] struct {
	match func(I) bool
	d     time.Duration
}

// Delays are the delay rules in force; a request waits for the sum of
// those that match it. The zero value holds none.
type Delays[I any] struct{ list []*Delay[I] }

// Add puts a delay rule in force and returns it, for Remove.
func (ds *Delays[I]) Add(match func(I) bool, d time.Duration) *Delay[I] {
	rule := &Delay[I]{match: match, d: d}
	ds.list = append(ds.list, rule)
	return rule
}

// Remove takes rule out of force.
func (ds *Delays[I]) Remove(rule *Delay[I]) {
	if i := slices.Index(ds.list, rule); i >= 0 {
		ds.list = append(ds.list[:i:i], ds.list[i+1:]...)
	}
}

// Clone returns the rules in force now, for Wait.
func (ds *Delays[I]) Clone() Delays[I] { return Delays[I]{list: slices.Clone(ds.list)} }

// Wait holds the request info describes for the delays that match it,
// on a timer (no real time inside a synctest bubble), until ctx ends or
// done is closed.
func (ds Delays[I]) Wait(ctx context.Context, done <-chan struct{}, info I) {
	var wait time.Duration
	for _, d := range ds.list {
		if d.match == nil || d.match(info) {
			wait += d.d
		}
	}
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-done:
	}
}

// Lag holds back the events of the watches of one resource (a plural;
// "" for every resource) by a random time in [Min, Max].
type Lag struct {
	Resource string
	Min, Max time.Duration
}

// Delay returns how long an event of a watch of resource is held back
// (a random time in [Min, Max]), and false when l, which may be nil,
// does not apply to it.
func (l *Lag) Delay(resource string) (time.Duration, bool) {
	if l == nil || l.Resource != "" && l.Resource != resource {
		return 0, false
	}
	d := l.Min
	if l.Max > l.Min {
		d += rand.N(l.Max - l.Min)
	}
	return d, true
}
