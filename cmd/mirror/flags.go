// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"

	"github.com/kubeloop/kubeloop/internal/mirror"
)

// options are the command line, checked.
type options struct {
	kubeconfig  string
	context     string
	namespace   string
	leaderElect bool
	leaderNS    string
	metricsAddr string
	healthAddr  string
	logLevel    slog.Level
	logFormat   string
	workers     int
	qps         float64
	burst       int
}

// parseFlags parses the command line. It returns flag.ErrHelp for -h, and
// an error naming the flag and its value for anything wrong; usage goes
// to out.
func parseFlags(args []string, out io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("mirror", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprint(out, `Usage: mirror [flags]

Copies Secrets and ConfigMaps annotated with
  kubeloop.dev/mirror-to: ns-a,ns-b
  kubeloop.dev/mirror-to-selector: <label selector on namespaces>
into those namespaces, keeps the copies in sync, and deletes them when the
source goes or stops asking for them. To see it work on an in-process
API server, without a cluster: go run ./cmd/demo

Exit codes: 0 stopped cleanly (SIGINT, SIGTERM), 1 runtime error or
leadership lost, 2 bad flags or configuration.

Flags:
`)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to a kubeconfig; default $KUBECONFIG, in-cluster, then ~/.kube/config")
	fs.StringVar(&o.context, "context", "", "kubeconfig context to use instead of the current one")
	fs.StringVar(&o.namespace, "namespace", "", "mirror only the sources in this namespace (copies go anywhere); default all")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "run on one replica at a time, elected through a Lease")
	fs.StringVar(&o.leaderNS, "leader-election-namespace", "", "namespace of the Lease; default the pod's namespace")
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", `address of the Prometheus metrics endpoint; "0" turns it off`)
	fs.StringVar(&o.healthAddr, "health-probe-bind-address", ":8081", `address of /healthz and /readyz; "0" turns them off`)
	level := fs.String("log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	fs.IntVar(&o.workers, "workers", 2, "reconciles run at once, per kind")
	fs.Float64Var(&o.qps, "kube-api-qps", 20, "requests per second to the API server (client-side limit)")
	fs.IntVar(&o.burst, "kube-api-burst", 30, "burst of requests to the API server above --kube-api-qps")
	if err := fs.Parse(args); err != nil {
		return o, err
	}

	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	if err := o.logLevel.UnmarshalText([]byte(*level)); err != nil || *level != "debug" && *level != "info" && *level != "warn" && *level != "error" {
		errs = append(errs, fmt.Errorf("--log-level %q: want debug, info, warn or error", *level))
	}
	if o.logFormat != "text" && o.logFormat != "json" {
		errs = append(errs, fmt.Errorf("--log-format %q: want text or json", o.logFormat))
	}
	if o.workers < 1 {
		errs = append(errs, fmt.Errorf("--workers %d: want at least 1", o.workers))
	}
	if o.qps <= 0 || o.burst < 1 {
		errs = append(errs, fmt.Errorf("--kube-api-qps %v, --kube-api-burst %d: want both positive", o.qps, o.burst))
	}
	for _, a := range []struct{ flag, addr string }{{"metrics-bind-address", o.metricsAddr}, {"health-probe-bind-address", o.healthAddr}} {
		if err := checkAddress(a.addr); err != nil {
			errs = append(errs, fmt.Errorf("--%s %q: %w", a.flag, a.addr, err))
		}
	}
	if o.namespace != "" && !mirror.IsNamespaceName(o.namespace) {
		errs = append(errs, fmt.Errorf("--namespace %q: not a namespace name", o.namespace))
	}
	return o, errors.Join(errs...)
}

// checkAddress accepts "0" (off) and "host:port".
func checkAddress(addr string) error {
	if addr == "0" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New(`want "host:port", ":port" or "0"`)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q: want 0 to 65535", port)
	}
	return nil
}

// newLogger builds the program's logger: text or JSON on w.
func newLogger(w io.Writer, o options) *slog.Logger {
	ho := &slog.HandlerOptions{Level: o.logLevel}
	if o.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, ho))
	}
	return slog.New(slog.NewTextHandler(w, ho))
}
