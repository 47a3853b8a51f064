// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is the watch-lag fault for the real kube-apiserver, as
// kubetest.Server.LagWatches is for the fake: a reverse proxy on loopback
// in front of the server that can hold back the events of JSON watches,
// so that a client's cache lags behind the writes the server answered.

// lagProxy passes every request to the server with the credentials of
// the config it was made with. The answer to a JSON watch is read line
// by line (one event a line, as the server writes them), and while a lag
// is in force each line is held until a random time in [least, most]
// after it was read, never before the line ahead of it: events keep
// their order, and a bookmark is held behind the events before it, so it
// never claims a version the watch has not delivered. Other answers, and
// watches in other encodings, pass unchanged.
type lagProxy struct {
	srv    *http.Server
	ln     net.Listener
	config *kube.Config // reaches the server through the proxy

	mu  sync.Mutex
	lag *lagRange // nil when off
}

// lagRange is one lag in force.
type lagRange struct {
	least, most time.Duration
}

// maxHeldLines bounds the lines one watch holds back; a watch with more
// to hold reads the server's stream no further until some are sent.
const maxHeldLines = 4096

// newLagProxy starts a proxy in front of the server that upstream
// reaches, serving plain HTTP on 127.0.0.1, and stops it when t ends.
func newLagProxy(t testing.TB, upstream *kube.Config) *lagProxy {
	t.Helper()
	target, err := url.Parse(upstream.Host)
	if err != nil {
		t.Fatalf("lag proxy: parse server address: %v", err)
	}
	hc, err := upstream.HTTPClient()
	if err != nil {
		t.Fatalf("lag proxy: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("lag proxy: listen: %v", err)
	}
	p := &lagProxy{ln: ln}
	logger := log.New(os.Stderr, "lag proxy: ", log.LstdFlags)
	rp := &httputil.ReverseProxy{
		Rewrite:        func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport:      hc.Transport, // adds upstream's credentials
		FlushInterval:  -1,
		ModifyResponse: p.modify,
		ErrorLog:       logger,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() == nil {
				logger.Printf("%s %s: %v", r.Method, r.URL.Path, err)
			}
			http.Error(w, fmt.Sprintf("lag proxy: %v", err), http.StatusBadGateway)
		},
	}
	p.srv = &http.Server{Handler: rp, ErrorLog: logger, ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln)
	// Close, not Shutdown: a watch still open must not hold the test up.
	t.Cleanup(func() { p.srv.Close() })

	cfg := *upstream
	cfg.Host = "http://" + ln.Addr().String()
	cfg.BearerToken, cfg.BearerTokenFile, cfg.Username, cfg.Password, cfg.Exec = "", "", "", "", nil
	cfg.TLS = kube.TLSConfig{}
	cfg.ProxyURL, cfg.Transport = "", nil
	p.config = &cfg
	return p
}

// LagWatches makes the proxy hold back the events of every JSON watch
// through it a random time in [least, most] after it read them, until
// undo is called; watches opened before the call lag too, from their
// next event. It returns the config that reaches the server through the
// proxy.
func (p *lagProxy) LagWatches(least, most time.Duration) (cfg *kube.Config, undo func()) {
	r := &lagRange{least: least, most: max(least, most)}
	p.mu.Lock()
	p.lag = r
	p.mu.Unlock()
	return p.config, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.lag == r {
			p.lag = nil
		}
	}
}

// delay returns how long to hold a line read now: 0 with no lag in force.
func (p *lagProxy) delay() time.Duration {
	p.mu.Lock()
	r := p.lag
	p.mu.Unlock()
	if r == nil {
		return 0
	}
	return r.least + rand.N(r.most-r.least+1)
}

// modify wraps the body of a JSON watch answer in a lagBody.
func (p *lagProxy) modify(resp *http.Response) error {
	q := resp.Request.URL.Query()
	if w := q.Get("watch"); w != "true" && w != "1" || resp.StatusCode != http.StatusOK {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil
	}
	resp.Body = newLagBody(resp.Request.Context(), resp.Body, p.delay)
	return nil
}

// lagBody is a watch answer's body that gives out each line when it
// falls due. A goroutine reads the server's stream ahead, stamping each
// line with its due time; Read waits for it.
type lagBody struct {
	ctx   context.Context
	body  io.ReadCloser
	lines chan heldLine // in order; closed after the item with the error
	stop  chan struct{} // closed by Close
	once  sync.Once

	cur []byte // what is left of the line being given out
	err error  // the stream's end, once reached
}

// heldLine is one line and when it may be given out, or the stream's
// end (err set, no data).
type heldLine struct {
	data []byte
	due  time.Time
	err  error
}

func newLagBody(ctx context.Context, body io.ReadCloser, delay func() time.Duration) *lagBody {
	b := &lagBody{ctx: ctx, body: body, lines: make(chan heldLine, maxHeldLines), stop: make(chan struct{})}
	go b.fill(delay)
	return b
}

// fill reads the stream line by line until it ends or the body is closed.
func (b *lagBody) fill(delay func() time.Duration) {
	defer close(b.lines)
	r := bufio.NewReader(b.body)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			// Read gives the lines out in order: one due before the
			// line ahead of it waits for that one.
			if !b.send(heldLine{data: line, due: time.Now().Add(delay())}) {
				return
			}
		}
		if err != nil {
			b.send(heldLine{err: err})
			return
		}
	}
}

// send queues l; false when the body was closed first.
func (b *lagBody) send(l heldLine) bool {
	select {
	case b.lines <- l:
		return true
	case <-b.stop:
		return false
	}
}

// Read gives out the held lines in order, each once it is due.
func (b *lagBody) Read(p []byte) (int, error) {
	if len(b.cur) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		var l heldLine
		var ok bool
		select {
		case l, ok = <-b.lines:
		case <-b.ctx.Done():
			return 0, b.ctx.Err()
		}
		switch {
		case !ok:
			b.err = errors.New("lag proxy: watch body closed")
			return 0, b.err
		case l.err != nil:
			b.err = l.err
			return 0, b.err
		}
		if wait := time.Until(l.due); wait > 0 {
			timer := time.NewTimer(wait)
			select {
			case <-timer.C:
			case <-b.ctx.Done():
				timer.Stop()
				return 0, b.ctx.Err()
			}
		}
		b.cur = l.data
	}
	n := copy(p, b.cur)
	b.cur = b.cur[n:]
	return n, nil
}

// Close stops the reading ahead and closes the server's stream.
func (b *lagBody) Close() error {
	b.once.Do(func() { close(b.stop) })
	return b.body.Close()
}
