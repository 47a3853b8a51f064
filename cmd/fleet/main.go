// SPDX-License-Identifier: Apache-2.0

// Fleet mirrors a ConfigMap of one cluster (the host) into every cluster
// of a fleet: an example of package manager/fleet to copy.
//
// The clusters are those named with --cluster NAME=KUBECONFIG, and those
// whose kubeconfigs are held in the Secrets of --secrets-namespace on the
// host (the data key "kubeconfig", of its current-context; the cluster is
// named after the Secret). A Secret added engages its cluster, a changed
// kubeconfig engages it again (at most every 30s), a Secret removed
// disengages it. A Secret's kubeconfig may not run a command, name a
// file, use plain http, skip TLS verification or go through a proxy
// (fleet.Secrets.Policy): whoever writes Secrets there chooses the
// clusters and credentials, nothing more. In each
// cluster the copy is created if missing, and its changes are undone at
// once; a change of the source reaches every cluster at once, each
// cluster on its own (one slow to answer delays no other), and every
// copy is compared with the source each --resync anyway. With
// --ring-namespace, run as many replicas as you like: they share the
// clusters through a ring of Leases, each cluster on one replica, and
// take over the clusters of a replica that stops or dies.
//
// Without --kubeconfig (and $KUBECONFIG), it runs a demo: three kubetest
// servers on loopback, a host holding the source and two kubeconfig
// Secrets, and two clusters.
package main

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/fleet"
)

func main() {
	os.Exit(run(manager.SetupSignalHandler(), os.Args[1:], os.Stderr))
}

// run is the program from its arguments to its exit code: 0 stopped, 1
// failed while running, 2 bad flags or configuration.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	log := slog.New(slog.NewTextHandler(stderr, nil))
	fs := flag.NewFlagSet("fleet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the host cluster (default $KUBECONFIG, in-cluster, ~/.kube/config; none of them: the demo)")
	source := fs.String("configmap", "default/fleet", "the host's ConfigMap to mirror, as namespace/name")
	secretsNS := fs.String("secrets-namespace", "kubeloop-fleet", "namespace of the host's kubeconfig Secrets; empty for none")
	resync := fs.Duration("resync", time.Minute, "how often each copy is compared with the source")
	metrics := fs.String("metrics-bind-address", "0", `where to serve metrics ("0": off)`)
	ringNS := fs.String("ring-namespace", "", "with a namespace, the replicas share the clusters through a ring of Leases there; empty: every replica runs every cluster")
	identity := fs.String("identity", "", "this replica's name in the ring (default: host name and a random UUID)")
	s := setup{static: map[string]*kube.Config{}, log: log}
	fs.Func("cluster", "NAME=KUBECONFIG: a cluster of the fleet; repeat for more", func(v string) error {
		name, path, ok := strings.Cut(v, "=")
		if !ok || name == "" || path == "" {
			return fmt.Errorf("want NAME=KUBECONFIG, got %q", v)
		}
		if s.static[name] != nil {
			return fmt.Errorf("cluster %q named twice", name)
		}
		cfg, err := kube.LoadConfig(kube.LoadOptions{Path: path})
		if err != nil {
			return err
		}
		s.static[name] = cfg
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ns, name, ok := strings.Cut(*source, "/")
	if !ok || ns == "" || name == "" {
		fmt.Fprintf(stderr, "--configmap %q: want namespace/name\n", *source)
		return 2
	}
	s.source, s.secretsNS, s.resync = kube.Key{Namespace: ns, Name: name}, *secretsNS, *resync
	if *ringNS != "" {
		s.ring = &fleet.RingOptions{Namespace: *ringNS, Ring: "kubeloop-fleet", Identity: *identity}
	}

	var host *kube.Config
	if *kubeconfig == "" && os.Getenv("KUBECONFIG") == "" {
		var stop func()
		var err error
		if host, stop, err = demo(s); err != nil {
			fmt.Fprintf(stderr, "start the demo: %v\n", err)
			return 1
		}
		defer stop()
		log.Info("demo: three kubetest servers; the host holds the source and two kubeconfig Secrets", "host", host.Host, "source", s.source.String(), "secrets", s.secretsNS)
	} else {
		var err error
		if host, err = kube.LoadConfig(kube.LoadOptions{Path: *kubeconfig}); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
	}
	mgr, _, err := newProgram(host, s, manager.Options{MetricsBindAddress: *metrics})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if err := mgr.Start(ctx); err != nil {
		log.Error("stopped", "err", err)
		return 1
	}
	return 0
}

// demo starts three kubetest servers on loopback: a host holding the
// source ConfigMap and, in s.secretsNS, the kubeconfig Secrets of the two
// others. It returns the host's config and a func that stops them.
func demo(s setup) (*kube.Config, func(), error) {
	var servers []*kubetest.Server
	stop := func() {
		for _, srv := range servers {
			srv.Close()
		}
	}
	// The host over plain http (its config is the program's own), the
	// clusters of the Secrets over https: a kubeconfig Secret's plain
	// http server is refused (fleet.Secrets.Policy).
	var listeners []*kubetest.Listener
	for i := range 3 {
		srv := kubetest.New(kubetest.Options{})
		servers = append(servers, srv)
		l, err := srv.Listen(i > 0)
		if err != nil {
			stop()
			return nil, nil, err
		}
		listeners = append(listeners, l)
	}
	host := servers[0]
	create := func(resource string, obj map[string]any) error {
		_, err := host.Create(kube.GroupVersionResource{Version: "v1", Resource: resource}, obj)
		return err
	}
	err := create("configmaps", map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": s.source.Namespace, "name": s.source.Name},
		"data":     map[string]any{"greeting": "hello from the host"}})
	if err == nil && s.secretsNS != "" {
		err = create("namespaces", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": s.secretsNS}})
		for i, name := range []string{"one", "two"} {
			if err == nil {
				err = create("secrets", map[string]any{"apiVersion": "v1", "kind": "Secret",
					"metadata": map[string]any{"namespace": s.secretsNS, "name": name},
					"data":     map[string]any{"kubeconfig": base64.StdEncoding.EncodeToString([]byte(kubeconfigOf(listeners[i+1].URL, listeners[i+1].CAData)))}})
			}
		}
	}
	if err != nil {
		stop()
		return nil, nil, err
	}
	cfg := host.Config()
	cfg.Transport = nil
	cfg.Host = listeners[0].URL
	return cfg, stop, nil
}

// kubeconfigOf is a kubeconfig of the server at url, signed by the CA
// of PEM ca (nil for the system roots), without credentials.
func kubeconfigOf(url string, ca []byte) string {
	var caData string
	if ca != nil {
		caData = ", certificate-authority-data: " + base64.StdEncoding.EncodeToString(ca)
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: %q%s}
contexts:
- name: c
  context: {cluster: c}
current-context: c
`, url, caData)
}
