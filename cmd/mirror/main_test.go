// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cmd/internal/mirror"
	"github.com/kubeloop/kubeloop/cmd/internal/operator"
	"github.com/kubeloop/kubeloop/cmd/internal/operator/operatortest"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

func TestExitCodes(t *testing.T) {
	// No kubeconfig anywhere: the error says how to get one, or to run
	// the demo.
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string // in stderr
	}{
		{"help", []string{"-h"}, operator.ExitOK, "Exit codes"},
		{"unknown flag", []string{"--nope"}, operator.ExitConfig, "flag provided but not defined: -nope"},
		{"log level", []string{"--log-level", "loud"}, operator.ExitConfig, `--log-level "loud"`},
		{"log format", []string{"--log-format", "xml"}, operator.ExitConfig, `--log-format "xml"`},
		{"workers", []string{"--workers", "0"}, operator.ExitConfig, "--workers 0"},
		{"address", []string{"--metrics-bind-address", "8080"}, operator.ExitConfig, `--metrics-bind-address "8080"`},
		{"namespace", []string{"--namespace", "Not_A_Namespace"}, operator.ExitConfig, `--namespace "Not_A_Namespace"`},
		{"arguments", []string{"extra"}, operator.ExitConfig, "unexpected arguments"},
		{"demo", []string{"-demo"}, operator.ExitConfig, "flag provided but not defined: -demo"},
		{"no kubeconfig", nil, operator.ExitConfig, "go run ./cmd/demo"},
		{"missing kubeconfig", []string{"--kubeconfig", filepath.Join(t.TempDir(), "missing")}, operator.ExitConfig, "missing"},
		{"leader election outside a cluster", []string{"--kubeconfig", operatortest.WriteKubeconfig(t, "https://127.0.0.1:1", nil),
			"--leader-elect", "--metrics-bind-address", "0"}, operator.ExitConfig, "LeaderElection.Namespace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errOut bytes.Buffer
			code := run(t.Context(), tc.args, &errOut)
			if code != tc.code || !strings.Contains(errOut.String(), tc.msg) {
				t.Errorf("run(%q) = %d, stderr:\n%s\nwant %d and %q", tc.args, code, &errOut, tc.code, tc.msg)
			}
		})
	}
}

// The binary's life as the integration suite drives it: started with a
// kubeconfig, it mirrors a source; cancelled (SIGTERM), it exits 0.
func TestRunWithKubeconfig(t *testing.T) {
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	ln, err := srv.Listen(true)
	if err != nil {
		t.Fatal(err)
	}
	path := operatortest.WriteKubeconfig(t, ln.URL, ln.CAData)
	client, err := kube.NewClient(ln.Config(), kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var logs operatortest.SyncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"--kubeconfig", path, "--leader-elect", "--leader-election-namespace", "default",
			"--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "127.0.0.1:0", "--log-format", "json"}, &logs)
	}()

	for _, ns := range []string{"team-a", "team-b"} {
		if err := client.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	src := &kube.ConfigMap{
		ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "settings", Annotations: map[string]string{mirror.AnnotationTo: "team-a,team-b"}},
		Data:       map[string]string{"colour": "blue"},
	}
	if err := client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, ns := range []string{"team-a", "team-b"} {
		for {
			c := &kube.ConfigMap{}
			err := client.Get(ctx, kube.Key{Namespace: ns, Name: "settings"}, c)
			if err == nil && c.Data["colour"] == "blue" && c.Labels[mirror.LabelOfKind] == "ConfigMap" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no copy in %s after 20s: %v, %v\nlogs:\n%s", ns, c, err, logs.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	cancel()
	select {
	case c := <-code:
		if c != operator.ExitOK {
			t.Errorf("run = %d after cancel, want %d\nlogs:\n%s", c, operator.ExitOK, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("run did not return 30s after cancel\nlogs:\n%s", logs.String())
	}
}
