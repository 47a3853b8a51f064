// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cmd/internal/operator"
	"github.com/kubeloop/kubeloop/cmd/internal/operator/operatortest"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

func TestExitCodes(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	ln, err := srv.Listen(true)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := operatortest.WriteKubeconfig(t, ln.URL, ln.CAData)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string // in stderr
	}{
		{"help", []string{"-h"}, operator.ExitOK, "Exit codes"},
		{"no kind", nil, operator.ExitConfig, "--kind is required"},
		{"bad kind", []string{"--kind", "Deployment"}, operator.ExitConfig, `invalid value "Deployment" for flag -kind`},
		{"kind twice", []string{"--kind", "apps/v1/Deployment", "--kind", "apps/v1beta1/Deployment"}, operator.ExitConfig, "kind Deployment given twice"},
		{"bad selector", []string{"--kind", "v1/ConfigMap", "--label-selector", "a in (b"}, operator.ExitConfig, "--label-selector"},
		{"log level", []string{"--kind", "v1/ConfigMap", "--log-level", "loud"}, operator.ExitConfig, `--log-level "loud"`},
		{"no kubeconfig", []string{"--kind", "v1/ConfigMap"}, operator.ExitConfig, "pass --kubeconfig"},
		{"unknown kind", []string{"--kind", "example.com/v1/Widget", "--kubeconfig", kubeconfig,
			"--metrics-bind-address", "0", "--health-probe-bind-address", "0"}, operator.ExitConfig, `no matches for kind "Widget"`},
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

// The binary's life: started with a kubeconfig, it deletes what is due;
// cancelled (SIGTERM), it exits 0.
func TestRunWithKubeconfig(t *testing.T) {
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	ln, err := srv.Listen(true)
	if err != nil {
		t.Fatal(err)
	}
	client, err := kube.NewClient(ln.Config(), kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var logs operatortest.SyncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"--kubeconfig", operatortest.WriteKubeconfig(t, ln.URL, ln.CAData), "--kind", "v1/ConfigMap",
			"--leader-elect", "--leader-election-namespace", "default",
			"--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "127.0.0.1:0"}, &logs)
	}()
	for _, cm := range []*kube.ConfigMap{
		{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "due", Annotations: map[string]string{AnnotationTTL: "0s"}}},
		{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "later", Annotations: map[string]string{AnnotationTTL: "1h"}}},
	} {
		if err := client.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := client.Get(ctx, kube.Key{Namespace: "default", Name: "due"}, &kube.ConfigMap{})
		if kube.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ConfigMap with ttl 0s still there after 20s (%v)\nlogs:\n%s", err, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := client.Get(ctx, kube.Key{Namespace: "default", Name: "later"}, &kube.ConfigMap{}); err != nil {
		t.Errorf("ConfigMap with ttl 1h: %v", err)
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
