// SPDX-License-Identifier: Apache-2.0

package pprof

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	runtimepprof "runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// Options configure a [Server].
type Options struct {
	// BindAddress is where the profiles are served: "host:port", for
	// example "127.0.0.1:8082". Required.
	BindAddress string
	// Logger receives the server's start and failed writes; nil
	// discards them.
	Logger *slog.Logger
}

// Bounds of a CPU profile's length, and of the wait for the requests in
// flight when the server stops.
const (
	defaultSeconds  = 30
	maxSeconds      = 600
	shutdownTimeout = 5 * time.Second
)

// Server serves the profiles on a listener of its own. It is a
// manager's runnable (manager.Manager.Add), or runs alone.
type Server struct {
	addr string
	log  *slog.Logger
	// ln is opened by Listen, or by Start when Listen was not called.
	ln net.Listener
}

// New makes a server of opts. It does no I/O: [Server.Listen] or
// [Server.Start] opens the address. It fails on an address that is not
// "host:port".
func New(opts Options) (*Server, error) {
	_, port, err := net.SplitHostPort(opts.BindAddress)
	if err == nil && port == "" {
		err = errors.New("no port")
	}
	if err != nil {
		return nil, fmt.Errorf("new pprof server: BindAddress %q: want \"host:port\": %w", opts.BindAddress, err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{addr: opts.BindAddress, log: log}, nil
}

// NeedLeaderElection reports false: every replica serves its profiles.
func (s *Server) NeedLeaderElection() bool { return false }

// Name names the server in a manager's logs and errors.
func (s *Server) Name() string { return "pprof" }

// Listen opens the listener. A manager calls it before it starts
// anything, so that an address in use fails its Start.
func (s *Server) Listen() error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("pprof BindAddress %q: %w", s.addr, err)
	}
	s.ln = ln
	return nil
}

// Addr returns the address the server listens on (the port chosen, for
// a BindAddress of port 0) once Listen has returned, or nil before.
func (s *Server) Addr() net.Addr {
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// Start serves until ctx is done. Requests in flight (a CPU profile
// running) end with ctx, their answers cut short.
func (s *Server) Start(ctx context.Context) error {
	if s.ln == nil {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 90 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(s.ln) }()
	s.log.Info("serving pprof", "addr", s.ln.Addr().String())
	select {
	case err := <-served:
		return fmt.Errorf("serve pprof on %s: %w", s.ln.Addr(), err)
	case <-ctx.Done():
	}
	// The handlers' contexts are done with ctx: a CPU profile ends now.
	// Wait for them, bounded.
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if srv.Shutdown(stop) != nil {
		_ = srv.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve pprof on %s: %w", s.ln.Addr(), err)
	}
	return nil
}

// ServeHTTP answers the paths of the package doc, under /debug/pprof/.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, "/debug/pprof/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	q := r.URL.Query()
	switch name {
	case "":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		var b strings.Builder
		b.WriteString("profile: CPU profile, ?seconds=N\ncmdline: the program's arguments\n")
		for _, p := range runtimepprof.Profiles() {
			fmt.Fprintf(&b, "%s: %d\n", p.Name(), p.Count())
		}
		_, _ = w.Write([]byte(b.String()))
	case "cmdline":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(strings.Join(os.Args, "\x00")))
	case "profile":
		secs, err := intParam(q.Get("seconds"), defaultSeconds)
		if err != nil || secs < 1 || secs > maxSeconds {
			http.Error(w, fmt.Sprintf("seconds %q: want 1 to %d", q.Get("seconds"), maxSeconds), http.StatusBadRequest)
			return
		}
		s.cpu(w, r, time.Duration(secs)*time.Second)
	default:
		p := runtimepprof.Lookup(name)
		if p == nil {
			http.Error(w, fmt.Sprintf("profile %q not found", name), http.StatusNotFound)
			return
		}
		debug, err := intParam(q.Get("debug"), 0)
		if err != nil {
			http.Error(w, fmt.Sprintf("debug %q: want a number", q.Get("debug")), http.StatusBadRequest)
			return
		}
		if name == "heap" && q.Get("gc") != "" && q.Get("gc") != "0" {
			runtime.GC()
		}
		binaryHeaders(w, name, debug)
		if err := p.WriteTo(w, debug); err != nil {
			s.log.Info("pprof: writing a profile failed", "profile", name, "err", err)
		}
	}
}

// cpu writes a CPU profile of d, or of less if the request ends first.
func (s *Server) cpu(w http.ResponseWriter, r *http.Request, d time.Duration) {
	binaryHeaders(w, "profile", 0)
	if err := runtimepprof.StartCPUProfile(w); err != nil {
		w.Header().Del("Content-Disposition")
		http.Error(w, "start CPU profile: "+err.Error(), http.StatusInternalServerError)
		return
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-r.Context().Done():
		t.Stop()
	}
	runtimepprof.StopCPUProfile()
}

// binaryHeaders sets the headers of a profile: an attachment in the
// protocol buffer format, or text when debug > 0.
func binaryHeaders(w http.ResponseWriter, name string, debug int) {
	if debug > 0 {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
}

// intParam parses a query parameter, def when it is absent.
func intParam(v string, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	return strconv.Atoi(v)
}
