// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"github.com/kubeloop/kubeloop/internal/errs"
	"net"
	"net/http"
	"strings"
	"time"
)

// This file holds the metrics and health servers: their listeners, opened
// by Start first of all, and their lives, from the first thing Start does
// to the last.

// metricsPath is where the metrics server answers.
const metricsPath = "/metrics"

// serverTimeouts bound the connections of the metrics and health servers.
// Neither streams: a scrape and a probe are each one short answer.
type serverTimeouts struct {
	// readHeader bounds reading a request's headers (a client that
	// trickles them, slowloris); read, reading the whole request; write,
	// writing the answer, from the end of the request's headers; idle,
	// the wait for the next request on a keep-alive connection.
	readHeader, read, write, idle time.Duration
}

// defaultServerTimeouts are the webhook server's read bounds (10s for
// headers, where controller-runtime allows 32s; a minute for the whole
// request, where it sets none), a minute to write a scrape of a large
// registry (it sets none), and its idle timeout (90s, as
// http.DefaultTransport keeps idle connections).
func defaultServerTimeouts() serverTimeouts {
	return serverTimeouts{readHeader: 10 * time.Second, read: time.Minute, write: time.Minute, idle: 90 * time.Second}
}

// newHTTPServer is a server of h bounded by t.
func newHTTPServer(h http.Handler, t serverTimeouts) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: t.readHeader, ReadTimeout: t.read, WriteTimeout: t.write, IdleTimeout: t.idle}
}

// server is one HTTP server the manager runs on a listener of its own.
type server struct {
	name string
	srv  *http.Server
	ln   net.Listener
	done chan struct{} // closed when Serve has returned
}

// listen opens the listeners of the metrics and health servers, and has
// the webhook server (if it has a Listen method) bind its own, before
// Start starts anything: an address in use is an error of Start, naming
// the option, and leaves nothing open.
func (m *Manager) listen() error {
	var err error
	if addr := m.opts.MetricsBindAddress; addr != "0" {
		if m.metricsLn, err = net.Listen("tcp", addr); err != nil {
			return errs.Errorf("MetricsBindAddress %q: %w", addr, err)
		}
	}
	if addr := m.opts.HealthProbeBindAddress; addr != "0" {
		if m.healthLn, err = net.Listen("tcp", addr); err != nil {
			m.closeListeners()
			return errs.Errorf("HealthProbeBindAddress %q: %w", addr, err)
		}
	}
	for _, w := range m.webhooks.pendingRunnables() {
		if w.listen == nil {
			continue
		}
		if err := w.listen.Listen(); err != nil {
			m.closeListeners()
			return errs.Errorf("WebhookServer: %w", err)
		}
	}
	return nil
}

// closeListeners closes what listen opened, when it fails part way.
func (m *Manager) closeListeners() {
	for _, ln := range []net.Listener{m.metricsLn, m.healthLn} {
		if ln != nil {
			_ = ln.Close() // nothing was served on it
		}
	}
}

// MetricsHandler is the handler of the metrics endpoint, for a server of
// the program's own: package manager/metricsauth's, which serves it over
// HTTPS to the callers the API server authorizes. It fails unless
// MetricsBindAddress is "0": the manager would serve the same metrics
// over plain HTTP beside it. The handler answers /metrics, and 404 for
// every other path.
func (m *Manager) MetricsHandler() (http.Handler, error) {
	if !m.made() {
		return nil, errNoManager
	}
	if addr := m.opts.MetricsBindAddress; addr != "0" {
		return nil, errs.Errorf("metrics handler: MetricsBindAddress is %q: set it to \"0\", or the manager serves the metrics over plain HTTP there too", addr)
	}
	return m.metricsHandler(), nil
}

// The two handlers below route by hand: an http.ServeMux would link its
// pattern parser and conflict checks (some 50 kB of binary) for three
// fixed paths.

// metricsHandler serves the metrics endpoint.
func (m *Manager) metricsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != metricsPath {
			http.NotFound(w, req)
			return
		}
		m.registry.ServeHTTP(w, req)
	})
}

// healthHandler serves the liveness and readiness endpoints, and each of
// their checks under them (/readyz/NAME).
func (m *Manager) healthHandler() http.Handler {
	endpoints := []struct {
		path string
		h    http.Handler
	}{
		{m.opts.LivenessEndpointName, http.StripPrefix(m.opts.LivenessEndpointName, m.healthz)},
		{m.opts.ReadinessEndpointName, http.StripPrefix(m.opts.ReadinessEndpointName, m.readyz)},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var h http.Handler
		longest := 0 // the longest path matching, as a ServeMux would choose
		for _, ep := range endpoints {
			p := req.URL.Path
			if (p == ep.path || strings.HasPrefix(p, ep.path+"/")) && len(ep.path) > longest {
				h, longest = ep.h, len(ep.path)
			}
		}
		if h == nil {
			http.NotFound(w, req)
			return
		}
		h.ServeHTTP(w, req)
	})
}

// serve starts serving the listeners listen opened.
func (m *Manager) serve() []*server {
	var out []*server
	for _, s := range []struct {
		name string
		ln   net.Listener
		h    func() http.Handler
	}{{"metrics", m.metricsLn, m.metricsHandler}, {"health probe", m.healthLn, m.healthHandler}} {
		if s.ln == nil {
			continue
		}
		srv := &server{name: s.name, ln: s.ln, done: make(chan struct{}),
			srv: newHTTPServer(s.h(), m.serverTimeouts)}
		go func() {
			defer close(srv.done)
			if err := srv.srv.Serve(srv.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				m.fail.add(errs.Errorf("serve %s on %s: %w", srv.name, srv.ln.Addr(), err))
			}
		}()
		m.log.Info("serving "+s.name, "addr", s.ln.Addr().String())
		out = append(out, srv)
	}
	return out
}

// shutdownServers lets the servers finish the requests they are serving
// until deadline is done, then closes them.
func (m *Manager) shutdownServers(deadline context.Context, servers []*server) {
	for _, s := range servers {
		if err := s.srv.Shutdown(deadline); err != nil {
			m.log.Info("closing "+s.name+" server with requests in flight", "err", err)
			_ = s.srv.Close() // the error is the listener's, already closed
		}
		<-s.done
	}
}
