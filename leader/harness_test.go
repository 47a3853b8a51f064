// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// This file is the harness of the scenarios in elector_test.go: a kubetest
// server, candidates that each reach it as their own user through a link
// the test can cut, and a ledger of leadership terms that fails the test
// the instant two terms overlap. Everything runs inside a synctest bubble,
// so the times it records are fake and exact.

// cluster is a kubetest server and the candidates contending on it.
type cluster struct {
	t   *testing.T
	srv *kubetest.Server
	t0  time.Time

	mu         sync.Mutex
	leading    int     // candidates inside a term right now
	terms      []*term // every term, in start order
	candidates []*candidate
}

// term is one candidate's spell of leadership as its callbacks saw it: from
// the start of OnStartedLeading to the cancellation of its context.
type term struct {
	id         string
	start, end time.Time // end is zero while the term is open
}

// candidate is one elector with its own client and link.
type candidate struct {
	id   string
	e    *Elector
	link *link
	stop context.CancelFunc
	done chan struct{} // closed when Run has returned
	err  error         // Run's result, set before done is closed

	mu         sync.Mutex
	newLeaders []string // OnNewLeader calls, in order
	stopped    int      // OnStoppedLeading calls
}

const testLease = "demo-leader"

// newCluster starts a kubetest server inside the calling bubble; its users
// are the candidate ids, each with a token.
func newCluster(t *testing.T, ids ...string) *cluster {
	tokens := map[string]string{"tok-admin": "admin"}
	for _, id := range ids {
		tokens["tok-"+id] = id
	}
	c := &cluster{t: t, srv: kubetest.New(kubetest.Options{Tokens: tokens}), t0: time.Now()}
	t.Cleanup(c.shutdown)
	return c
}

// since returns the fake time elapsed since the cluster started.
func (c *cluster) since() time.Duration { return time.Since(c.t0) }

// start makes and runs a candidate with the test durations (15s, 10s, 2s:
// the defaults) unless edit changes them.
func (c *cluster) start(id string, edit func(*Options)) *candidate {
	c.t.Helper()
	cd := &candidate{id: id, done: make(chan struct{})}
	var client *kube.Client
	client, cd.link = linkedClient(c.t, c.srv, id)
	cfg := Options{
		Client: client, Namespace: "default", LeaseName: testLease, Identity: id,
		OnStartedLeading: func(ctx context.Context) { c.lead(id, ctx) },
		OnStoppedLeading: func() {
			cd.mu.Lock()
			cd.stopped++
			cd.mu.Unlock()
		},
		OnNewLeader: func(identity string) {
			cd.mu.Lock()
			cd.newLeaders = append(cd.newLeaders, identity)
			cd.mu.Unlock()
		},
	}
	if edit != nil {
		edit(&cfg)
	}
	var err error
	if cd.e, err = New(cfg); err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cd.stop = cancel
	go func() {
		defer close(cd.done)
		cd.err = cd.e.Run(ctx)
	}()
	c.mu.Lock()
	c.candidates = append(c.candidates, cd)
	c.mu.Unlock()
	return cd
}

// lead is every candidate's OnStartedLeading: it opens a term, fails the
// test if another is open, and closes the term when ctx is cancelled.
func (c *cluster) lead(id string, ctx context.Context) {
	c.mu.Lock()
	tm := &term{id: id, start: time.Now()}
	c.terms = append(c.terms, tm)
	c.leading++
	if c.leading > 1 {
		c.t.Errorf("at +%v: %s started leading while another term is open: %v", c.since(), id, c.openTerms())
	}
	c.mu.Unlock()
	<-ctx.Done()
	c.mu.Lock()
	tm.end = time.Now()
	c.leading--
	c.mu.Unlock()
}

func (c *cluster) openTerms() []string {
	var ids []string
	for _, tm := range c.terms {
		if tm.end.IsZero() {
			ids = append(ids, tm.id)
		}
	}
	return ids
}

// history returns a copy of the terms so far.
func (c *cluster) history() []term {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]term, len(c.terms))
	for i, tm := range c.terms {
		out[i] = *tm
	}
	return out
}

// current returns the open term, if any.
func (c *cluster) current() (term, bool) {
	h := c.history()
	if len(h) > 0 && h[len(h)-1].end.IsZero() {
		return h[len(h)-1], true
	}
	return term{}, false
}

// waitTerm advances fake time in small steps until term n (counting from
// 0) has opened, and returns it; it fails the test after limit.
func (c *cluster) waitTerm(n int, limit time.Duration) term {
	c.t.Helper()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		if h := c.history(); len(h) > n {
			return h[n]
		}
	}
	if h := c.history(); len(h) > n {
		return h[n]
	}
	c.t.Fatalf("at +%v: no term %d within %v; terms %+v", c.since(), n, limit, c.history())
	return term{}
}

// byID returns the candidate with identity id.
func (c *cluster) byID(id string) *candidate {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cd := range c.candidates {
		if cd.id == id {
			return cd
		}
	}
	c.t.Fatalf("no candidate %q", id)
	return nil
}

// lease reads the Lease as the admin.
func (c *cluster) lease() *kube.Lease {
	c.t.Helper()
	var l kube.Lease
	if err := c.admin().Get(context.Background(), kube.Key{Namespace: "default", Name: testLease}, &l); err != nil {
		c.t.Fatal(err)
	}
	return &l
}

// admin returns a client of user admin.
func (c *cluster) admin() *kube.Client {
	c.t.Helper()
	client, err := kube.NewClient(c.srv.Config(), kube.ClientOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	return client
}

// deleteLease deletes the Lease as the admin.
func (c *cluster) deleteLease() {
	c.t.Helper()
	l := &kube.Lease{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: testLease}}
	if err := c.admin().Delete(context.Background(), l); err != nil {
		c.t.Fatal(err)
	}
}

// halt cancels cd's Run and returns its result.
func (cd *candidate) halt() error {
	cd.stop()
	<-cd.done
	return cd.err
}

// await waits up to limit of fake time for cd's Run to return by itself,
// and returns its result; it fails the test if Run goes on.
func (c *cluster) await(cd *candidate, limit time.Duration) error {
	c.t.Helper()
	select {
	case <-cd.done:
		return cd.err
	case <-time.After(limit):
		c.t.Fatalf("at +%v: Run of %s still running after %v", c.since(), cd.id, limit)
		return nil
	}
}

// shutdown stops every candidate still running and closes the server, so
// that the bubble has no goroutine left.
func (c *cluster) shutdown() {
	c.mu.Lock()
	cands := slices.Clone(c.candidates)
	c.mu.Unlock()
	for _, cd := range cands {
		cd.link.heal()
		cd.stop()
	}
	for _, cd := range cands {
		select {
		case <-cd.done:
		case <-time.After(time.Hour):
			c.t.Errorf("candidate %s: Run did not return within an hour of fake time", cd.id)
		}
	}
	c.srv.Close()
}

// linkedClient returns a client of user id on srv, through a link the
// test can cut.
func linkedClient(t *testing.T, srv *kubetest.Server, id string) (*kube.Client, *link) {
	t.Helper()
	kcfg := srv.ConfigFor(id)
	l := &link{next: kcfg.Transport}
	kcfg.Transport = l
	client, err := kube.NewClient(kcfg, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return client, l
}

// link is a candidate's network: it passes requests on, or refuses them
// as a dead connection would, or holds them until healed without regard
// for their context (a stuck transport).
type link struct {
	next http.RoundTripper

	mu   sync.Mutex
	down bool
	hold chan struct{} // non-nil: requests wait for it to be closed
}

func (l *link) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	down, hold := l.down, l.hold
	l.mu.Unlock()
	if down {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	if hold != nil {
		<-hold
	}
	return l.next.RoundTrip(r)
}

// cut makes every request fail.
func (l *link) cut() {
	l.mu.Lock()
	l.down = true
	l.mu.Unlock()
}

// stall makes every request hang until heal.
func (l *link) stall() {
	l.mu.Lock()
	if l.hold == nil {
		l.hold = make(chan struct{})
	}
	l.mu.Unlock()
}

// heal undoes cut and stall.
func (l *link) heal() {
	l.mu.Lock()
	l.down = false
	if l.hold != nil {
		close(l.hold)
		l.hold = nil
	}
	l.mu.Unlock()
}

// isLost reports whether err is Run's "leadership lost".
func isLost(err error) bool { return errors.Is(err, ErrLeadershipLost) }
