// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"crypto/rand"
	"log/slog"
	"maps"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/authz"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/controllers"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/discovery"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/faults"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/minor"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/openapi"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/rbac"
)

// Options configures a [Server]. The zero value is ready to use.
type Options struct {
	// Minor is the Kubernetes minor release (1.Minor) the server acts as,
	// OldestMinor to NewestMinor; zero means NewestMinor. An older minor
	// changes what a client's code path depends on, so that a test can
	// run a program's fallbacks without a cluster of that release, and
	// nothing else (defaults, other messages and schemas stay the
	// newest's):
	//   - /version reports that release (1.33: v1.33.13);
	//   - WatchList as that release's default gate has it (FeatureGates
	//     changes it): on 1.33 (the gate off) a watch with
	//     sendInitialEvents answers 422 Invalid ("sendInitialEvents is
	//     forbidden for watch unless the WatchList feature gate is
	//     enabled") and a watch without a resourceVersion starts with the
	//     state but no initial-events-end bookmark;
	//   - before 1.36 ?shardSelector= is ignored (every object listed and
	//     watched, no metadata.shardInfo), as a release without the
	//     ShardedListAndWatch gate ignores an unknown parameter;
	//   - discovery, OpenAPI and the API serve the built-in resources that
	//     release serves by default: 1.33 has no resource.k8s.io, no
	//     volumeattributesclasses and no mutating admission policies,
	//     1.34 and 1.35 no mutating admission policies (a request for one
	//     answers 404);
	//   - before 1.37 a page of a sharded list counts the remaining items,
	//     CustomResourceDefinitions have the default Table (name and
	//     creation time), and the errors of metadata.ownerReferences name
	//     the list, not the entry, and call an empty field an Invalid value
	//     (1.33 with the field's name in the detail), and an access review
	//     with both or neither attributes is refused at the attribute,
	//     not at spec;
	//   - on 1.33 a PUT carrying the uid of an object deleted since
	//     answers 409 Conflict "StorageError: invalid object, Code: 4"
	//     (its uid precondition checked on the absent object), where 1.34
	//     and later answer 404.
	// New panics with a message naming the minors served for any other
	// value.
	Minor int
	// FeatureGates turns on or off, as kube-apiserver's --feature-gates
	// does, the gates kubetest models, whose default is the minor's:
	// WatchList (off in 1.33 only) and ShardedListAndWatch (1.36 and
	// later; on unless set false here or by DisableShardedListAndWatch,
	// as the harness runs kube-apiserver). New panics naming a gate the
	// minor does not have or kubetest does not model.
	FeatureGates map[string]bool
	// HistorySize is how many events each resource keeps for watches that
	// resume from a resourceVersion and for Exact lists at a past version;
	// older versions answer 410 Expired. Zero means 1000; negative keeps
	// none.
	HistorySize int
	// BookmarkInterval is how often a watch that allows bookmarks gets one.
	// Zero means one minute, roughly what the real server does.
	BookmarkInterval time.Duration
	// WatchBufferSize bounds the events queued for one watch that its
	// client has not read yet. A watch that overflows it is closed, as the
	// real watch cache closes slow watchers. Zero means 1000.
	WatchBufferSize int
	// Tokens maps bearer tokens to user names. When it is empty there is no
	// authentication and every request is made by user "admin"; otherwise a
	// request needs one of the tokens (health and /version excepted).
	Tokens map[string]string
	// UIDs maps user names to uids, as the third column of kube-apiserver's
	// token file does: a SelfSubjectReview (`kubectl auth whoami`)
	// reports them. A user without one has no uid.
	UIDs map[string]string
	// DisableShardedListAndWatch makes the server behave as kube-apiserver
	// with the ShardedListAndWatch feature gate off (its default before
	// 1.36, and in 1.36 unless turned on): ?shardSelector= is ignored and
	// lists carry no shardInfo. By default the server honours it as a 1.37
	// server (or 1.36, with Options.Minor) with the gate on does.
	DisableShardedListAndWatch bool
	// DisableGarbageCollection runs the server without its garbage
	// collector, as kube-apiserver runs without kube-controller-manager's:
	// dependents outlive their owners, and an owner deleted with
	// propagationPolicy Foreground or Orphan keeps the finalizer the API
	// server gives it (foregroundDeletion, orphan) until a test removes
	// it. The namespace controller still runs.
	DisableGarbageCollection bool
	// WebhookServices resolves the clientConfig.service of an admission or
	// conversion webhook to the address (host:port) where the test serves it, as the
	// real server finds a Service's endpoints: kubetest runs no pods. The
	// webhook is called at https://NAME.NAMESPACE.svc:PORT/PATH dialled at
	// that address, its certificate checked for NAME.NAMESPACE.svc. Nil:
	// a call to a service fails as one to a Service without endpoints
	// does. A webhook with a clientConfig.url needs nothing.
	WebhookServices func(namespace, name string, port int32) (address string, err error)
	// Logger receives one record per request at debug level, slow
	// watches closed and listener failures at warn level, and a request
	// whose handler panicked (answered 500, as kube-apiserver does) at
	// error level with the panic's value and stack; nil discards them.
	Logger *slog.Logger
}

// Server is an in-process Kubernetes API server speaking the real wire
// protocol. Serve it with [Server.Transport] (in-process, for synctest
// bubbles), [Server.Listen] (a loopback socket), or as an [http.Handler].
//
// All methods are safe for concurrent use. The server holds everything in
// memory behind one mutex: a write costs O(log n) plus the encoding of the
// object and O(watchers) to dispatch; a list costs O(n).
type Server struct {
	opts Options
	log  *slog.Logger
	// facts are those of the minor the server acts as (internal/minor).
	facts minor.Facts
	// minorOpenAPI is, for a server acting as an older minor, the
	// built-in OpenAPI documents limited to what it serves (computed at
	// first use); nil for the newest.
	minorOpenAPI func() (v3 map[string]openapi.Doc, v2 obj)
	// openAPI keeps the documents of the served CRDs' last state.
	openAPI openapi.Cache

	// done is closed by Close; every request and watch ends when it is.
	done chan struct{}
	// inflight counts handlers running; Close waits for them.
	inflight sync.WaitGroup

	mu sync.Mutex
	// closed is set by Close, after which no handler starts.
	closed bool
	// rv is the last resourceVersion handed out: one counter for every
	// resource, as etcd's revision.
	rv   uint64
	reg  *registry
	cols map[string]*collection // by resource.colKey()
	// aggregated holds the aggregated discovery documents of /api and
	// /apis at the registry's generation aggregatedGen (discovery.go).
	aggregated    map[string]discovery.AggregatedDoc
	aggregatedGen uint64
	// ctl is the state of the in-process garbage collector and namespace
	// controller (controllers.go, internal/controllers).
	ctl controllers.Controllers
	// faults, denials and counts are the test hooks of faults.go.
	failures faults.Failures[RequestInfo]
	delays   faults.Delays[RequestInfo]
	// lag, when set, holds back watch events (LagWatches).
	lag *faults.Lag
	// expiring counts the ExpireWatches faults in force.
	expiring int
	// streams are the EndlessLists and SilenceWatches faults in force
	// (faults_stream.go, internal/faults).
	streams faults.Rules[RequestInfo]
	denials authz.Denials
	counts  map[string]int
	// asked records each user's requests, for Roles (auth.go).
	asked     rbac.Recorder
	listeners []*Listener
	// tokenKey signs the service account tokens of TokenRequests
	// (tokenrequest.go); random per server.
	tokenKey []byte

	// patchComputed, when set (by tests, before the first request), is
	// called each time a PATCH has computed the patched object and before
	// it stores it.
	patchComputed func()
}

// New returns a server holding what a fresh kube-apiserver holds (see
// bootstrap.go): the namespaces default, kube-system, kube-public and
// kube-node-lease, service/kubernetes in default, and the API server's
// ConfigMap and identity Lease in kube-system. It does no I/O and starts no
// goroutine. It panics if opts.Minor is neither zero nor in
// OldestMinor..NewestMinor.
func New(opts Options) *Server {
	m, err := resolveMinor(opts.Minor)
	if err != nil {
		panic(err.Error())
	}
	facts, err := minor.Of(m, Version).WithGates(m, opts.FeatureGates)
	if err != nil {
		panic(err.Error())
	}
	opts.Minor = m
	opts.FeatureGates = maps.Clone(opts.FeatureGates)
	if opts.HistorySize == 0 {
		opts.HistorySize = 1000
	} else if opts.HistorySize < 0 {
		opts.HistorySize = 0
	}
	if opts.BookmarkInterval <= 0 {
		opts.BookmarkInterval = time.Minute
	}
	if opts.WatchBufferSize <= 0 {
		opts.WatchBufferSize = 1000
	}
	opts.Tokens = maps.Clone(opts.Tokens) // the caller may change its maps later
	opts.UIDs = maps.Clone(opts.UIDs)
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		opts:   opts,
		log:    log,
		facts:  facts,
		done:   make(chan struct{}),
		reg:    newRegistryAt(m),
		cols:   map[string]*collection{},
		ctl:    controllers.Controllers{NoGC: opts.DisableGarbageCollection},
		counts: map[string]int{},
	}
	s.tokenKey = make([]byte, 32)
	_, _ = rand.Read(s.tokenKey)
	for _, group := range append([]string{""}, s.reg.Groups()...) {
		for _, v := range s.reg.Versions(group) {
			for _, r := range s.reg.ByGV[gvKey(group, v)] {
				if s.cols[r.colKey()] == nil {
					s.cols[r.colKey()] = newCollection(opts.HistorySize, 0)
				}
			}
		}
	}
	if m != NewestMinor {
		s.minorOpenAPI = sync.OnceValues(func() (map[string]openapi.Doc, obj) { return builtinOpenAPIFor(newRegistryAt(m)) })
	}
	s.bootstrap()
	return s
}

// Close ends every watch and in-process request, closes the listeners made
// by [Server.Listen], and waits for all handlers to return. Requests after
// Close fail. Close is idempotent.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.inflight.Wait()
		return
	}
	s.closed = true
	for _, c := range s.cols {
		for w := range c.watchers {
			s.stopWatcherLocked(w)
		}
	}
	listeners := s.listeners
	s.listeners = nil
	s.mu.Unlock()
	close(s.done)
	for _, l := range listeners {
		l.Close()
	}
	s.inflight.Wait()
}

// enter registers a handler; false when the server is closed.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.inflight.Add(1)
	return true
}

// ServeHTTP serves the Kubernetes API. Server is an [http.Handler].
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		apierr.Write(w, apierr.New(http.StatusServiceUnavailable, kube.ReasonServiceUnavailable,
			"the kubetest server is closed", nil))
		return
	}
	defer s.inflight.Done()
	defer s.recoverPanic(w, r)
	info := parseRequestInfo(r)
	user, authErr := s.authenticate(r, info)
	info.User = user
	s.count(info)
	s.log.Debug("request", "verb", info.Verb, "path", r.URL.Path, "user", user)
	if authErr != nil {
		apierr.Write(w, authErr)
		return
	}
	s.asked.Record(user, rbacRequest(info))
	if err := s.injectFaults(r, info); err != nil {
		apierr.Write(w, err)
		return
	}
	if s.serveStreamFault(w, r, info) {
		return
	}
	if !info.IsResourceRequest {
		s.serveNonResource(w, r)
		return
	}
	s.serveResource(w, r, info)
}

// msgPanic is kube-apiserver's answer to a request whose handler
// panicked (500, text/plain).
const msgPanic = "This request caused apiserver to panic. Look in the logs for details."

// recoverPanic ends a request whose handler panicked as kube-apiserver's
// panic filter does: the panic is logged at error level with its value and
// stack, and the request answered 500 with msgPanic. Locks are released
// by the deferred unlocks of withLock; the server goes on serving. What the
// panicking request had changed stays changed.
func (s *Server) recoverPanic(w http.ResponseWriter, r *http.Request) {
	p := recover()
	if p == nil {
		return
	}
	s.log.Error("request panicked", "method", r.Method, "path", r.URL.RequestURI(), "panic", p, "stack", string(debug.Stack()))
	http.Error(w, msgPanic, http.StatusInternalServerError)
}

// withLock runs fn with s.mu held, and releases it even when fn panics:
// a panic while serving one request must leave the server serving the
// next (see recoverPanic).
func (s *Server) withLock(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn()
	s.runControllersLocked()
}

// nextRV hands out the next resourceVersion. The caller holds s.mu.
func (s *Server) nextRV() uint64 {
	s.rv++
	return s.rv
}

// CurrentResourceVersion returns the latest resourceVersion handed out.
func (s *Server) CurrentResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return formatRV(s.rv)
}
