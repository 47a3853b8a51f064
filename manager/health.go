// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"errors"
	"fmt"
	"github.com/kubeloop/kubeloop/internal/errs"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// This file holds the liveness and readiness endpoints: named checks,
// answered as Kubernetes' own components answer /healthz and /readyz.

// maxTolerableRenewDelay is how far past LeaseDuration a leader's last
// renew may be before the leader election check fails (client-go's usual
// value).
const maxTolerableRenewDelay = 20 * time.Second

// Checker is a health check: nil means healthy. It gets the probe's
// request, and must answer quickly (a probe times out after a second by
// default).
type Checker func(req *http.Request) error

// The built-in checks, which [New] adds and no user check may replace:
//
//   - "ping" (liveness and readiness): always passes; the process
//     answers HTTP.
//   - "cache-sync" (readiness): fails until the manager's caches have
//     synced, and again once they stop.
//   - "leader-election" (liveness, only with LeaderElection on): fails
//     when this replica leads but has not renewed its Lease for
//     LeaseDuration plus 20s, a stuck leader a restart cures.
const (
	CheckPing           = "ping"
	CheckCacheSync      = "cache-sync"
	CheckLeaderElection = "leader-election"
)

// AddHealthzCheck adds a liveness check, served at
// LivenessEndpointName and LivenessEndpointName/NAME. A failing liveness
// check makes the kubelet restart the container: use it only for states
// a restart cures. It fails for an empty name, a name with "/", and a
// name taken: a built-in's ([CheckPing], [CheckLeaderElection]; the error
// names them) or one added before.
func (m *Manager) AddHealthzCheck(name string, check Checker) error {
	if !m.made() {
		return errs.Errorf("add healthz check %q: %w", name, errNoManager)
	}
	return m.healthz.add(name, check)
}

// AddReadyzCheck adds a readiness check, served at ReadinessEndpointName
// and ReadinessEndpointName/NAME. It fails as AddHealthzCheck does; the
// built-ins here are [CheckPing] and [CheckCacheSync].
func (m *Manager) AddReadyzCheck(name string, check Checker) error {
	if !m.made() {
		return errs.Errorf("add readyz check %q: %w", name, errNoManager)
	}
	return m.readyz.add(name, check)
}

// addBuiltinChecks adds "ping" to both endpoints, "cache-sync" to
// readiness, and "leader-election" to liveness when the manager elects.
func (m *Manager) addBuiltinChecks() {
	ping := func(*http.Request) error { return nil }
	m.healthz.addBuiltin(CheckPing, ping)
	m.readyz.addBuiltin(CheckPing, ping)
	m.readyz.addBuiltin(CheckCacheSync, func(*http.Request) error {
		if !m.synced.Load() {
			return errors.New("the caches have not synced, or have stopped")
		}
		return nil
	})
	if m.ring != nil {
		m.readyz.addBuiltin(CheckRing, m.ring.readiness)
	}
	if e := m.election; e != nil {
		m.healthz.addBuiltin(CheckLeaderElection, func(*http.Request) error { return e.Check(maxTolerableRenewDelay) })
	}
}

// checks is one endpoint's set of named checks.
type checks struct {
	endpoint string // "healthz" or "readyz", in answers
	log      *slog.Logger

	mu       sync.Mutex
	byName   map[string]Checker
	builtins []string // the names in byName that the manager added, in order
}

func newChecks(endpoint string, log *slog.Logger) *checks {
	return &checks{endpoint: endpoint, log: log, byName: map[string]Checker{}}
}

// addBuiltin adds one of the manager's own checks (before any user's).
func (c *checks) addBuiltin(name string, check Checker) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byName[name] = check
	c.builtins = append(c.builtins, name)
}

func (c *checks) add(name string, check Checker) error {
	switch {
	case name == "" || strings.ContainsAny(name, "/?# "):
		return errs.Errorf("add %s check: name %q must be non-empty, without '/', '?', '#' or spaces", c.endpoint, name)
	case check == nil:
		return errs.Errorf("add %s check %q: check is nil", c.endpoint, name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.Contains(c.builtins, name) {
		return errs.Errorf("add %s check %q: the name is a built-in check of the manager's (%s has %s): choose another",
			c.endpoint, name, c.endpoint, strings.Join(c.builtins, ", "))
	}
	if _, ok := c.byName[name]; ok {
		return errs.Errorf("add %s check %q: a check of that name was added before", c.endpoint, name)
	}
	c.byName[name] = check
	return nil
}

// result is the outcome of one check.
type result struct {
	name string
	err  error
}

// ServeHTTP answers the endpoint (path "" or "/") or one check ("/NAME"),
// with the endpoint's own path stripped:
//
//   - all checks pass: 200 "ok"; with ?verbose, one "[+]name ok" line per
//     check and "<endpoint> check passed";
//   - one fails: 500 with a line per check, "[-]name failed: reason
//     withheld" for failures (the reason is logged, not shown: the
//     endpoint is not authenticated), and "<endpoint> check failed";
//   - ?exclude=NAME (repeatable) leaves checks out;
//   - /NAME runs that check alone: 200 "ok", 500 "internal server error:
//     <reason>", or 404 for an unknown name.
func (c *checks) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	c.mu.Lock()
	names := make([]string, 0, len(c.byName))
	for name := range c.byName {
		names = append(names, name)
	}
	byName := make(map[string]Checker, len(c.byName))
	for name, fn := range c.byName {
		byName[name] = fn
	}
	c.mu.Unlock()
	slices.Sort(names)

	if one := strings.TrimPrefix(req.URL.Path, "/"); one != "" {
		fn, ok := byName[one]
		if !ok {
			http.Error(w, fmt.Sprintf("%s check %q not found", c.endpoint, one), http.StatusNotFound)
			return
		}
		if err := fn(req); err != nil {
			c.log.Info(c.endpoint+" check failed", "check", one, "err", err)
			http.Error(w, "internal server error: "+err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, "ok")
		return
	}

	q := req.URL.Query()
	excluded := map[string]bool{}
	for _, name := range q["exclude"] {
		excluded[name] = true
	}
	var results []result
	failed := false
	for _, name := range names {
		if excluded[name] {
			delete(excluded, name)
			continue
		}
		err := byName[name](req)
		if err != nil {
			failed = true
			c.log.Info(c.endpoint+" check failed", "check", name, "err", err)
		}
		results = append(results, result{name, err})
	}
	if !failed && !q.Has("verbose") {
		fmt.Fprint(w, "ok")
		return
	}
	var b strings.Builder
	for _, r := range results {
		if r.err == nil {
			fmt.Fprintf(&b, "[+]%s ok\n", r.name)
		} else {
			fmt.Fprintf(&b, "[-]%s failed: reason withheld\n", r.name)
		}
	}
	if len(excluded) > 0 {
		unknown := make([]string, 0, len(excluded))
		for name := range excluded {
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
		slices.Sort(unknown)
		fmt.Fprintf(&b, "warn: some %s checks cannot be excluded: no matches for %s\n", c.endpoint, strings.Join(unknown, ","))
	}
	if failed {
		fmt.Fprintf(&b, "%s check failed\n", c.endpoint)
		w.WriteHeader(http.StatusInternalServerError)
	} else {
		fmt.Fprintf(&b, "%s check passed\n", c.endpoint)
	}
	fmt.Fprint(w, b.String())
}
