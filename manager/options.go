// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// Defaults, as controller-runtime sets them (the sync period's is the
// cache's, cache.DefaultSyncPeriod).
const (
	DefaultMetricsBindAddress      = ":8080"
	DefaultReadinessEndpointName   = "/readyz"
	DefaultLivenessEndpointName    = "/healthz"
	DefaultGracefulShutdownTimeout = 30 * time.Second
)

// inClusterNamespaceFile is where a pod's namespace is mounted: the default
// of LeaderElectionOptions.Namespace.
const inClusterNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// Options configure a [Manager]. The zero value is valid (it serves
// metrics on :8080), except that leader election, once enabled, needs an
// LeaseName, and a Namespace outside a cluster.
type Options struct {
	// Logger receives the manager's logs (start, stop, failures of
	// runnables and of event writes) and is passed to the cache and the
	// elector; nil discards them.
	Logger *slog.Logger

	// Namespaces limits the cache to these namespaces; empty means all.
	Namespaces []string
	// SyncPeriod is how often the cache's informers resync: every handler
	// gets an update for every object again. Zero means
	// [cache.DefaultSyncPeriod] (10h); negative turns resyncs off.
	SyncPeriod time.Duration
	// MaxFreshWait bounds how long a read through [Client], and a
	// controller before it reconciles, waits for the cache to hold this
	// manager's own writes (see "Reading your own writes" in package
	// cache). Zero means [cache.DefaultMaxFreshWait] (5s); negative turns
	// the waits off.
	MaxFreshWait time.Duration
	// ByObject declares kinds up front, with their own namespaces,
	// selectors, transform and compactness (cache.ByObject.Compact).
	// Declared kinds start with the cache and are synced before anything
	// else starts, on every replica: declare the kinds your controllers
	// watch so that a standby replica keeps them warm (see the package
	// doc).
	ByObject []cache.ByObject
	// DisableFor lists kinds that [Client] reads from the API server
	// instead of the cache (each value names a kind, as &kube.Secret{}):
	// kinds read rarely, or too many to hold in memory.
	DisableFor []kube.Object
	// DefaultTransform is applied to every cached object of a kind
	// without a transform of its own.
	DefaultTransform func(obj kube.Object)
	// KeepManagedFields keeps metadata.managedFields in the cached
	// objects. By default the cache decodes objects without them (never
	// built), as a reconciler reads them, when it needs them, from the
	// API server; see [cache.InformerOptions.KeepManagedFields].
	KeepManagedFields bool
	// Compact, PageSize, WatchList and
	// ReaderFailOnMissingInformer are the cache's defaults for every kind,
	// passed to it as they are: see [cache.Options]. A kind's own
	// settings (its ByObject entry: Compact, SyncPeriod,
	// NamespaceSelectors) win.
	Compact                     bool
	PageSize                    int64
	WatchList                   bool
	ReaderFailOnMissingInformer bool
	// WatchErrorHandler, when set, is told of every failure of the
	// cache's lists and watches; see [cache.WatchErrorHandler].
	WatchErrorHandler cache.WatchErrorHandler
	// FieldManager is sent with every write of the clients and is the
	// default field manager of Apply.
	FieldManager string

	// LeaderElection, when set (to a [LeaderElectionOptions]), makes the
	// runnables that need it run on one replica at a time; nil (the
	// default) runs everything on every replica.
	LeaderElection LeaderElection

	// Sharding, when set (to a [ShardingOptions]), makes the manager a
	// member of a ring of replicas, which share the objects of the
	// controllers built with controller.Builder.Sharded.
	Sharding Sharding

	// MetricsBindAddress is where the Prometheus metrics are served, at
	// /metrics: "host:port", ":8080" by default; "0" turns the server off.
	// They are served over plain HTTP to anyone who reaches the address,
	// as controller-runtime's default serves them: to serve them over
	// HTTPS to the callers the API server authorizes only, set it to "0"
	// and add a server of package manager/metricsauth.
	MetricsBindAddress string
	// HealthProbeBindAddress is where the liveness and readiness endpoints
	// are served; "" or "0" (the default) turns the server off.
	HealthProbeBindAddress string
	// ReadinessEndpointName and LivenessEndpointName are the paths of
	// the probes: "/readyz" and "/healthz" by default.
	ReadinessEndpointName string
	LivenessEndpointName  string

	// GracefulShutdownTimeout bounds the stop of everything the manager
	// runs, once Start's context is done; what has not stopped by then is
	// named in Start's error. Zero means
	// [DefaultGracefulShutdownTimeout] (30s); negative waits for ever.
	GracefulShutdownTimeout time.Duration

	// WebhookServer, when set, is the admission and conversion webhook
	// server: started first and stopped after the caches, since the API
	// server may call it while anything still writes. Make it with
	// package manager/webhook (webhook.New, whose Options hold the port,
	// 9443, and the certificate directory). If it has a Listen() error
	// method, Start calls it first of all (so that a port in use fails
	// Start before anything runs); if it has a
	// StartedChecker() func(*http.Request) error method, its check is
	// added to readiness as "webhook".
	WebhookServer Runnable
}

// withDefaults fills o's defaults and checks it. nsFile is where the
// pod's namespace is read from. Errors name the field and the value.
func (o *Options) withDefaults(nsFile string) error {
	var errs []error
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	for i, obj := range o.DisableFor {
		if obj == nil {
			errs = append(errs, fmt.Errorf("DisableFor[%d] is nil", i))
		} else if gvk := obj.GroupVersionKind(); gvk.Kind == "" || gvk.Version == "" {
			errs = append(errs, fmt.Errorf("DisableFor[%d] (%T) names no kind: set its apiVersion and kind", i, obj))
		}
	}
	if o.MetricsBindAddress == "" {
		o.MetricsBindAddress = DefaultMetricsBindAddress
	}
	if err := checkAddress(o.MetricsBindAddress); err != nil {
		errs = append(errs, fmt.Errorf("MetricsBindAddress %q: %w", o.MetricsBindAddress, err))
	}
	if o.HealthProbeBindAddress == "" {
		o.HealthProbeBindAddress = "0"
	}
	if err := checkAddress(o.HealthProbeBindAddress); err != nil {
		errs = append(errs, fmt.Errorf("HealthProbeBindAddress %q: %w", o.HealthProbeBindAddress, err))
	}
	if o.ReadinessEndpointName == "" {
		o.ReadinessEndpointName = DefaultReadinessEndpointName
	}
	if o.LivenessEndpointName == "" {
		o.LivenessEndpointName = DefaultLivenessEndpointName
	}
	for _, ep := range []struct{ field, path string }{
		{"ReadinessEndpointName", o.ReadinessEndpointName},
		{"LivenessEndpointName", o.LivenessEndpointName},
	} {
		if !strings.HasPrefix(ep.path, "/") || strings.HasSuffix(ep.path, "/") || strings.ContainsAny(ep.path, "?# ") {
			errs = append(errs, fmt.Errorf("%s %q: want a path such as \"/readyz\"", ep.field, ep.path))
		}
	}
	if o.ReadinessEndpointName == o.LivenessEndpointName {
		errs = append(errs, fmt.Errorf("ReadinessEndpointName and LivenessEndpointName are both %q", o.LivenessEndpointName))
	}
	if o.GracefulShutdownTimeout == 0 {
		o.GracefulShutdownTimeout = DefaultGracefulShutdownTimeout
	}
	return errors.Join(errs...)
}

// podNamespace reads the pod's namespace from nsFile, as the default of
// the option field; the error says to set field.
func podNamespace(nsFile, field string) (string, error) {
	b, err := os.ReadFile(nsFile)
	ns := strings.TrimSpace(string(b))
	switch {
	case err != nil:
		return "", fmt.Errorf("%s is empty and the pod's namespace is unknown (%w): set %s when not running in a cluster", field, err, field)
	case ns == "":
		return "", fmt.Errorf("%s is empty and %s is empty: set %s", field, nsFile, field)
	}
	return ns, nil
}

// checkAddress accepts "0" (off) and "host:port" with a numeric or named
// port.
func checkAddress(addr string) error {
	if addr == "0" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New(`want "host:port", ":port" or "0" to turn it off`)
	}
	if n, err := strconv.Atoi(port); err == nil && (n < 0 || n > 65535) {
		return fmt.Errorf("port %d out of range", n)
	}
	return nil
}
