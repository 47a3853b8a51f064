// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cmd/internal/mirror"
	"github.com/kubeloop/kubeloop/cmd/internal/operator/operatortest"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// The idle memory of the mirror binary with many mirrored objects, for
// cmd/README.md. It builds the binary, serves kubetest on loopback (TLS),
// seeds the sources, runs the binary as its own process until every copy
// is made and its queues have been empty for a while, and reads VmRSS
// from /proc. It takes a minute, so it runs only when asked:
//
//	KUBELOOP_MEASURE=1 go test -run TestMeasureIdleRSS -v ./cmd/mirror/
//
// KUBELOOP_MEASURE_N sets the number of sources (default 1,000), each a
// Secret with 64 bytes of data copied into one namespace; 1,000 unrelated
// Secrets sit beside them, as in a real cluster.
func TestMeasureIdleRSS(t *testing.T) {
	if os.Getenv("KUBELOOP_MEASURE") == "" {
		t.Skip("set KUBELOOP_MEASURE=1 to run the measurement")
	}
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("KUBELOOP_MEASURE_N")); err == nil && v > 0 {
		n = v
	}
	bin := filepath.Join(t.TempDir(), "mirror")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if fi, err := os.Stat(bin); err == nil {
		t.Logf("binary: %d bytes", fi.Size())
	}

	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	ln, err := srv.Listen(true)
	if err != nil {
		t.Fatal(err)
	}
	secrets := kube.GroupVersionResource{Version: "v1", Resource: "secrets"}
	namespaces := kube.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	for _, ns := range []string{"src", "dst"} {
		if _, err := srv.Create(namespaces, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}); err != nil {
			t.Fatal(err)
		}
	}
	pad := strings.Repeat("x", 64)
	for i := range n {
		for _, s := range []struct {
			name        string
			annotations map[string]any
		}{
			{fmt.Sprintf("source-%05d", i), map[string]any{mirror.AnnotationTo: "dst"}},
			{fmt.Sprintf("other-%05d", i), nil},
		} {
			obj := map[string]any{"apiVersion": "v1", "kind": "Secret",
				"metadata":   map[string]any{"namespace": "src", "name": s.name, "annotations": s.annotations},
				"stringData": map[string]any{"k": pad}}
			if _, err := srv.Create(secrets, obj); err != nil {
				t.Fatal(err)
			}
		}
	}

	metricsAddr, err := freeLoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	var logs operatortest.SyncBuffer
	cmd := exec.Command(bin, "--kubeconfig", operatortest.WriteKubeconfig(t, ln.URL, ln.CAData),
		"--metrics-bind-address", metricsAddr, "--health-probe-bind-address", "0",
		"--kube-api-qps", "500", "--kube-api-burst", "1000", "--log-level", "warn")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("mirror exited with %v after SIGTERM\n%s", err, logs.String())
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("mirror did not stop 30s after SIGTERM")
		}
	})

	for {
		copies, err := srv.List(secrets, "dst")
		if err != nil {
			t.Fatal(err)
		}
		if len(copies) >= n {
			break
		}
		if time.Since(start) > 5*time.Minute {
			t.Fatalf("%d copies of %d after 5 minutes\n%s", len(copies), n, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%d copies made in %v", n, time.Since(start).Round(time.Millisecond))

	// Idle: every queue empty, and no reconcile for five seconds.
	var last string
	for quiet := 0; quiet < 10; {
		time.Sleep(500 * time.Millisecond)
		m, err := scrape(metricsAddr)
		if err != nil {
			t.Fatal(err)
		}
		if m == last {
			quiet++
		} else {
			quiet = 0
		}
		last = m
	}
	rss, hwm := procStatus(t, cmd.Process.Pid, "VmRSS"), procStatus(t, cmd.Process.Pid, "VmHWM")
	t.Logf("idle with %d sources, %d copies and %d other Secrets: VmRSS %s, VmHWM %s", n, n, n, rss, hwm)
	t.Logf("reconciles and queue at idle: %s", last)
}

// scrape returns the lines of the metrics that move while the mirror
// works: reconcile counts and queue depths.
func scrape(addr string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "controller_runtime_reconcile_total{") || strings.HasPrefix(l, "workqueue_depth{") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; "), sc.Err()
}

// procStatus returns a field of /proc/PID/status, such as "12345 kB".
func procStatus(t *testing.T, pid int, field string) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return ""
}

// freeLoopbackAddr returns a loopback address with a port free a moment
// ago, for the metrics server.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port for the metrics: %w", err)
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}
