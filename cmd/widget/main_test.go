// SPDX-License-Identifier: Apache-2.0

package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/cmd/internal/operator"
	"github.com/kubeloop/kubeloop/cmd/internal/operator/operatortest"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

func TestExitCodes(t *testing.T) {
	operatortest.NoCluster(t)
	_, kubeconfig := operatortest.Cluster(t)
	operatortest.CheckExitCodes(t, run, []operatortest.ExitCase{
		{Name: "help", Args: []string{"-h"}, Code: operator.ExitOK, Stderr: "Exit codes"},
		{Name: "arguments", Args: []string{"extra"}, Code: operator.ExitConfig, Stderr: `unexpected arguments ["extra"]`},
		{Name: "no kubeconfig", Args: nil, Code: operator.ExitConfig, Stderr: "pass --kubeconfig"},
		{Name: "pprof address", Args: []string{"--kubeconfig", kubeconfig, "--metrics-bind-address", "0", "--pprof-bind-address", "localhost"},
			Code: operator.ExitConfig, Stderr: `BindAddress "localhost"`},
		{Name: "metrics certificate without an address", Args: []string{"--kubeconfig", kubeconfig, "--metrics-bind-address", "0", "--metrics-cert-dir", "/tmp"},
			Code: operator.ExitConfig, Stderr: "--metrics-cert-dir with --metrics-bind-address"},
		{Name: "no CRD", Args: []string{"--install-crd=false", "--kubeconfig", kubeconfig, "--metrics-bind-address", "0", "--health-probe-bind-address", "0"},
			Code: operator.ExitRuntime, Stderr: `no matches for kind \"Widget\"`},
	})
}

// The binary's life: it updates its CRD, reconciles a Widget, serves
// its metrics (the controller's, the Go runtime's and the process's, and
// leader election's) and its profiles, and exits 0 when cancelled.
func TestRunWithKubeconfig(t *testing.T) {
	client, kubeconfig, srv := operatortest.RecordedCluster(t)
	// The CRD of an older release is installed: the operator updates it.
	old, err := widgetCRD()
	if err != nil {
		t.Fatal(err)
	}
	old.Spec.Names.ShortNames = nil
	if err := client.Create(t.Context(), old); err != nil {
		t.Fatal(err)
	}
	metricsAddr, pprofAddr := freeLoopbackAddr(t), freeLoopbackAddr(t)
	p := operatortest.Start(t, run, "--kubeconfig", kubeconfig,
		"--leader-elect", "--leader-election-namespace", "default",
		"--metrics-bind-address", metricsAddr, "--health-probe-bind-address", "0", "--pprof-bind-address", pprofAddr)
	ctx := t.Context()
	p.Until("the CRD installed", func() error {
		return client.Create(ctx, &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "w"}, Spec: WidgetSpec{Color: "red"}})
	})
	p.Until("the Widget ready", func() error {
		var w Widget
		if err := client.Get(ctx, kube.Key{Namespace: "default", Name: "w"}, &w); err != nil {
			return err
		}
		if !kube.IsStatusConditionTrue(w.Status.Conditions, ConditionReady) {
			return fmt.Errorf("status %+v", w.Status)
		}
		return nil
	})
	// A spec change and a hand edit of the ConfigMap: the operator writes
	// the ConfigMap again each time.
	if err := client.Patch(ctx, &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "w"}},
		kube.Patch{Type: kube.MergePatch, Data: []byte(`{"spec":{"color":"green"}}`)}); err != nil {
		t.Fatal(err)
	}
	configMapColor := func(want string) func() error {
		return func() error {
			var cm kube.ConfigMap
			if err := client.Get(ctx, kube.Key{Namespace: "default", Name: "widget-w"}, &cm); err != nil {
				return err
			}
			if cm.Data["color"] != want {
				return fmt.Errorf("ConfigMap data %v", cm.Data)
			}
			return nil
		}
	}
	p.Until("the ConfigMap green", configMapColor("green"))
	if err := client.Patch(ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "widget-w"}},
		kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"color":"purple"}}`)}); err != nil {
		t.Fatal(err)
	}
	p.Until("the ConfigMap's hand edit undone", configMapColor("green"))
	p.Until("metrics served", func() error {
		body, err := scrape(metricsAddr)
		if err != nil {
			return err
		}
		for _, want := range []string{
			`controller_runtime_reconcile_total{controller="widget",result="success"}`,
			`workqueue_depth{controller="widget",name="widget"}`,
			`controller_runtime_reconcile_timeouts_total{controller="widget"} 0`,
			"go_goroutines ", "go_memstats_heap_alloc_bytes ", "process_start_time_seconds ",
			`leader_election_master_status{name="kubeloop-widget"} 1`,
		} {
			if !strings.Contains(body, want) {
				return fmt.Errorf("no %s in /metrics", want)
			}
		}
		return nil
	})
	p.Until("profiles served", func() error {
		resp, err := http.Get("http://" + pprofAddr + "/debug/pprof/goroutine?debug=1")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 || !strings.Contains(string(b), "goroutine profile: ") {
			return fmt.Errorf("goroutine profile: %d %.80q %v", resp.StatusCode, b, err)
		}
		return nil
	})
	w := &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "w"}}
	if err := client.Delete(ctx, w); err != nil {
		t.Fatal(err)
	}
	p.Until("the Widget finalized and gone", func() error {
		if err := client.Get(ctx, kube.Key{Namespace: "default", Name: "w"}, w); !kube.IsNotFound(err) {
			return fmt.Errorf("get: %v, finalizers %v", err, w.Finalizers)
		}
		return nil
	})
	p.Stop()
	checkLogs(t, p.Logs.String())
	operatortest.CheckRBAC(t, srv, "kubeloop-widget", "rbac.yaml")
}

func scrape(addr string) (string, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// freeLoopbackAddr returns a loopback address with a port free a moment
// ago, for the metrics server.
func freeLoopbackAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// With --metrics-cert-dir the metrics are served over HTTPS, with the
// directory's certificate, to the callers the API server authorizes:
// none without a token.
func TestRunWithSecureMetrics(t *testing.T) {
	_, kubeconfig := operatortest.Cluster(t)
	ca, err := kubetest.NewCA("widget-metrics")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := ca.WriteServing(dir, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	metricsAddr := freeLoopbackAddr(t)
	p := operatortest.Start(t, run, "--kubeconfig", kubeconfig, "--health-probe-bind-address", "0",
		"--metrics-bind-address", metricsAddr, "--metrics-cert-dir", dir)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool}}}
	defer client.CloseIdleConnections()
	p.Until("metrics served over HTTPS", func() error {
		resp, err := client.Get("https://" + metricsAddr + "/metrics")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			return fmt.Errorf("GET /metrics without a token = %s, want 401 Unauthorized", resp.Status)
		}
		return nil
	})
	p.Stop()
}
