// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cmd/internal/operator/operatortest"
	"github.com/kubeloop/kubeloop/internal/yaml"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestRunServesKubeconfig starts the server, waits for its kubeconfig,
// reads a namespace through it with the kube package's loader and
// transport, and stops it by cancelling.
func TestRunServesKubeconfig(t *testing.T) {
	for _, useTLS := range []bool{true, false} {
		t.Run(map[bool]string{true: "tls", false: "plain"}[useTLS], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "kubeconfig")
			ctx, cancel := context.WithCancel(context.Background())
			var stdout, stderr operatortest.SyncBuffer
			done := make(chan error, 1)
			args := []string{"-kubeconfig", path, "-token", "s3cret"}
			if !useTLS {
				args = append(args, "-tls=false")
			}
			go func() { done <- run(ctx, args, &stdout, &stderr) }()
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(stdout.String(), "kubeconfig written") {
				if time.Now().After(deadline) {
					t.Fatalf("no kubeconfig after 10s; stderr: %s", stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("kubeconfig %s: %v, mode %v; want 0600", path, err, fi.Mode())
			}
			raw, _ := os.ReadFile(path)
			if _, err := yaml.Parse(raw); err != nil {
				t.Errorf("kubeconfig is not YAML the loader reads: %v\n%s", err, raw)
			}
			cfg, err := kube.LoadConfig(kube.LoadOptions{Path: path})
			if err != nil {
				t.Fatalf("LoadConfig: %v\n%s", err, raw)
			}
			if cfg.BearerToken != "s3cret" || cfg.Namespace != "default" || useTLS != (len(cfg.TLS.CAData) > 0) {
				t.Errorf("loaded config: token %q namespace %q CA %d bytes", cfg.BearerToken, cfg.Namespace, len(cfg.TLS.CAData))
			}
			hc, err := cfg.HTTPClient()
			if err != nil {
				t.Fatal(err)
			}
			resp, err := hc.Get(cfg.Host + "/api/v1/namespaces/default")
			if err != nil {
				t.Fatalf("GET through the kubeconfig: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var ns struct{ Kind string }
			if err := json.Unmarshal(body, &ns); resp.StatusCode != 200 || err != nil || ns.Kind != "Namespace" {
				t.Errorf("GET namespace default = %d %s", resp.StatusCode, body)
			}
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("run: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("run did not stop after cancel")
			}
		})
	}
}

func TestFlags(t *testing.T) {
	var stderr bytes.Buffer
	if _, err := parseFlags([]string{"-nope"}, &stderr); err == nil {
		t.Error("unknown flag accepted")
	}
	if _, err := parseFlags([]string{"-h"}, &stderr); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
	if _, err := parseFlags([]string{"extra"}, &stderr); err == nil {
		t.Error("positional argument accepted")
	}
	o, err := parseFlags(nil, &stderr)
	if err != nil || o.addr != "127.0.0.1:0" || !o.tls || o.kubeconfig == "" {
		t.Errorf("defaults = %+v, %v", o, err)
	}
	for _, bad := range []string{"svc:443=127.0.0.1:1", "ns/svc=127.0.0.1:1", "ns/svc:x=127.0.0.1:1", "ns/svc:443"} {
		if _, err := parseFlags([]string{"-webhook-service", bad}, &stderr); err == nil {
			t.Errorf("-webhook-service %s accepted", bad)
		}
	}
	o, err = parseFlags([]string{"-webhook-service", "system/hooks:443=127.0.0.1:9443"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if addr, err := o.webhookServices.resolve("system", "hooks", 443); addr != "127.0.0.1:9443" || err != nil {
		t.Errorf("resolve(system, hooks, 443) = %q, %v, want 127.0.0.1:9443", addr, err)
	}
	if _, err := o.webhookServices.resolve("system", "hooks", 8443); err == nil {
		t.Error("resolve of a port not given succeeded")
	}
}

// TestShardedListAndWatchFlag: the server honours a shard selector by
// default, and ignores it with -sharded-list-and-watch=false.
func TestShardedListAndWatchFlag(t *testing.T) {
	sel := kube.ShardSelector{Ranges: []kube.HashRange{{Start: 0, End: 1 << 63}}}
	for _, tt := range []struct {
		args     []string
		filtered bool
	}{
		{nil, true},
		{[]string{"-sharded-list-and-watch=false"}, false},
		{[]string{"-sharded-list-and-watch=true"}, true},
	} {
		o, err := parseFlags(append(tt.args, "-token", "tok"), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		s := kubetest.New(o.serverOptions(nil))
		c, err := kube.NewClient(&kube.Config{Host: "https://kubetest", Transport: s.Transport(), BearerToken: "tok"}, kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var list kube.List[kube.ConfigMap]
		if err := c.List(t.Context(), &list, kube.InNamespace("default"), sel); err != nil {
			t.Fatalf("%v: list with a shard selector: %v", tt.args, err)
		}
		if got := list.FilteredBy(sel); got != tt.filtered {
			t.Errorf("%v: list filtered by the shard selector = %v, want %v", tt.args, got, tt.filtered)
		}
		s.Close()
	}
}

// TestGarbageCollectionFlag: the server collects the dependents of a
// deleted owner by default, and leaves them with -garbage-collection=false.
func TestGarbageCollectionFlag(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		collected bool
	}{
		{nil, true},
		{[]string{"-garbage-collection=false"}, false},
	} {
		o, err := parseFlags(append(tt.args, "-token", "tok"), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		s := kubetest.New(o.serverOptions(nil))
		c, err := kube.NewClient(&kube.Config{Host: "https://kubetest", Transport: s.Transport(), BearerToken: "tok"}, kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		owner := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "owner"}}
		if err := c.Create(t.Context(), owner); err != nil {
			t.Fatal(err)
		}
		dep := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "dep",
			OwnerReferences: []kube.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}}}}
		if err := c.Create(t.Context(), dep); err != nil {
			t.Fatal(err)
		}
		if err := c.Delete(t.Context(), owner); err != nil {
			t.Fatal(err)
		}
		err = c.Get(t.Context(), dep.Key(), &kube.ConfigMap{})
		if got := kube.IsNotFound(err); got != tt.collected {
			t.Errorf("%v: dependent collected = %v (%v), want %v", tt.args, got, err, tt.collected)
		}
		s.Close()
	}
}

func TestKubeconfigYAML(t *testing.T) {
	got := kubeconfigYAML("https://127.0.0.1:6443", []byte("PEM"), "tok")
	want := `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: UEVN
    server: https://127.0.0.1:6443
  name: kubetest
contexts:
- context:
    cluster: kubetest
    namespace: default
    user: kubetest-admin
  name: kubetest
current-context: kubetest
kind: Config
preferences: {}
users:
- name: kubetest-admin
  user:
    token: tok
`
	if got != want {
		t.Errorf("kubeconfig =\n%s\nwant\n%s", got, want)
	}
}
