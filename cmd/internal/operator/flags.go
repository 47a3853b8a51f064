// SPDX-License-Identifier: Apache-2.0

package operator

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"

	"github.com/kubeloop/kubeloop/kube"
)

// Flags are the flags every operator takes: where the cluster is, leader
// election, the endpoints, logging, and how hard to work.
type Flags struct {
	Kubeconfig              string   // --kubeconfig; "" to look in the usual places
	Context                 string   // --context; "" for the current one
	LeaderElect             bool     // --leader-elect
	LeaderElectionNamespace string   // --leader-election-namespace; "" for the pod's
	MetricsBindAddress      string   // --metrics-bind-address; "0" for none
	HealthProbeBindAddress  string   // --health-probe-bind-address; "0" for none
	Log                     LogFlags // --log-level, --log-format
	Workers                 int      // --workers; at least 1
	QPS                     float64  // --kube-api-qps; 0 for no client-side limit
	Burst                   int      // --kube-api-burst; at least 1 with a limit
}

// Register defines the flags on fs, writing into f. Only --workers
// differs between programs: its default is workers, its help text
// workersUsage.
func (f *Flags) Register(fs *flag.FlagSet, workers int, workersUsage string) {
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "path to a kubeconfig; default $KUBECONFIG, in-cluster, then ~/.kube/config")
	fs.StringVar(&f.Context, "context", "", "kubeconfig context to use instead of the current one")
	fs.BoolVar(&f.LeaderElect, "leader-elect", false, "run on one replica at a time, elected through a Lease")
	fs.StringVar(&f.LeaderElectionNamespace, "leader-election-namespace", "", "namespace of the Lease; default the pod's namespace")
	fs.StringVar(&f.MetricsBindAddress, "metrics-bind-address", ":8080", `address of the Prometheus metrics endpoint; "0" turns it off`)
	fs.StringVar(&f.HealthProbeBindAddress, "health-probe-bind-address", ":8081", `address of /healthz and /readyz; "0" turns them off`)
	fs.StringVar(&f.Log.Level, "log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&f.Log.Format, "log-format", "text", "log format: text or json")
	fs.IntVar(&f.Workers, "workers", workers, workersUsage)
	fs.Float64Var(&f.QPS, "kube-api-qps", 0, "requests per second to the API server (client-side limit); 0 means none, the API server's Priority and Fairness limits")
	fs.IntVar(&f.Burst, "kube-api-burst", 0, "burst of requests to the API server above --kube-api-qps (at least 1 when --kube-api-qps is set)")
}

// Validate checks the flags' values and returns an error for each bad
// one, naming the flag and the value, joined with [errors.Join]; nil if
// all are good.
func (f *Flags) Validate() error {
	errs := []error{f.Log.Validate()}
	if f.Workers < 1 {
		errs = append(errs, fmt.Errorf("--workers %d: want at least 1", f.Workers))
	}
	switch {
	case f.QPS < 0 || f.Burst < 0:
		errs = append(errs, fmt.Errorf("--kube-api-qps %v, --kube-api-burst %d: want neither negative", f.QPS, f.Burst))
	case f.QPS > 0 && f.Burst < 1:
		errs = append(errs, fmt.Errorf("--kube-api-qps %v, --kube-api-burst %d: a limit needs a burst of at least 1", f.QPS, f.Burst))
	}
	for _, a := range []struct{ flag, addr string }{{"metrics-bind-address", f.MetricsBindAddress}, {"health-probe-bind-address", f.HealthProbeBindAddress}} {
		if err := checkAddress(a.addr); err != nil {
			errs = append(errs, fmt.Errorf("--%s %q: %w", a.flag, a.addr, err))
		}
	}
	return errors.Join(errs...)
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

// LoadConfig loads the cluster configuration that --kubeconfig and
// --context name, as [kube.LoadConfig] does. If that fails, it writes the
// error to stderr as "prog: error" and, when --kubeconfig was not given,
// a line telling to pass it, ending with hint (as ", or ..."; "" for
// none); then it returns false, and the program should exit with
// [ExitConfig].
func (f *Flags) LoadConfig(stderr io.Writer, prog, hint string) (*kube.Config, bool) {
	cfg, err := kube.LoadConfig(kube.LoadOptions{Path: f.Kubeconfig, Context: f.Context})
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		if f.Kubeconfig == "" {
			fmt.Fprintf(stderr, "%s: pass --kubeconfig (or set KUBECONFIG) to reach a cluster%s\n", prog, hint)
		}
		return nil, false
	}
	return cfg, true
}

// LogFlags are --log-level and --log-format. [Flags.Register] defines
// them; a program that takes no other common flag (cmd/demo) defines them
// itself and still checks them with [LogFlags.Validate].
type LogFlags struct {
	Level  string // debug, info, warn or error
	Format string // text or json
}

// Validate returns an error for each bad value, naming the flag and the
// value, joined with [errors.Join]; nil if both are good.
func (l LogFlags) Validate() error {
	var errs []error
	if _, err := l.level(); err != nil {
		errs = append(errs, fmt.Errorf("--log-level %q: want debug, info, warn or error", l.Level))
	}
	if l.Format != "text" && l.Format != "json" {
		errs = append(errs, fmt.Errorf("--log-format %q: want text or json", l.Format))
	}
	return errors.Join(errs...)
}

// level parses Level, accepting only the four names (not "INFO+2").
func (l LogFlags) level() (slog.Level, error) {
	var v slog.Level
	if err := v.UnmarshalText([]byte(l.Level)); err != nil {
		return 0, err
	}
	switch l.Level {
	case "debug", "info", "warn", "error":
		return v, nil
	}
	return 0, fmt.Errorf("log level %q: want debug, info, warn or error", l.Level)
}

// NewLogger builds the program's logger: text or JSON on w, at the
// level asked for. Call it on flags that passed [LogFlags.Validate].
func (l LogFlags) NewLogger(w io.Writer) *slog.Logger {
	level, _ := l.level()
	ho := &slog.HandlerOptions{Level: level}
	if l.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, ho))
	}
	return slog.New(slog.NewTextHandler(w, ho))
}
