// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"errors"
	"fmt"
	"github.com/kubeloop/kubeloop/internal/errs"
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
	// runnables and of event writes) and is passed to the elector, and
	// to the cache unless Cache.Logger is set; nil discards them.
	Logger *slog.Logger

	// Cache configures the manager's cache, passed to cache.New as it is
	// (Namespaces, ByObject, SyncPeriod, MaxFreshWait, Compact, ...; see
	// [cache.Options]), except that a nil Cache.Logger is Logger. The
	// zero value caches every namespace, and makes a read through
	// [Client], and a controller before it reconciles, wait up to
	// [cache.DefaultMaxFreshWait] (5s) for the cache to hold this
	// manager's own writes. Declare in Cache.ByObject the kinds your
	// controllers watch: declared kinds start with the cache and are
	// synced before anything else starts, on every replica, so that a
	// standby replica keeps them warm (see the package doc).
	Cache cache.Options
	// DisableFor lists kinds that [Client] reads from the API server
	// instead of the cache (each value names a kind, as &kube.Secret{}):
	// kinds read rarely, or too many to hold in memory.
	DisableFor []kube.Object
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

	// Permissions, when set (to a [PermissionsCheck]), makes Start check
	// first, with SelfSubjectAccessReviews, that the manager may list and
	// watch what its cache holds and use its Lease and Events, and fail
	// with the RBAC rules to add when it may not; nil (the default)
	// checks nothing, and a denied request shows up later, as a 403 in
	// an informer's log.
	Permissions Permissions

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
	if o.Cache.Logger == nil {
		o.Cache.Logger = o.Logger
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
		return "", errs.Errorf("%s is empty and the pod's namespace is unknown (%w): set %s when not running in a cluster", field, err, field)
	case ns == "":
		return "", errs.Errorf("%s is empty and %s is empty: set %s", field, nsFile, field)
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
		return errs.Errorf("port %d out of range", n)
	}
	return nil
}
