// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
)

var (
	configMaps = kube.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	secrets    = kube.GroupVersionResource{Version: "v1", Resource: "secrets"}
)

func inProcess(srv *kubetest.Server) *kube.Config {
	cfg := srv.Config()
	cfg.QPS = -1
	return cfg
}

// data returns the data of ConfigMap default/fleet in srv, nil when it
// is not there.
func data(t *testing.T, srv *kubetest.Server) map[string]any {
	t.Helper()
	obj, err := srv.Get(configMaps, "default", "fleet")
	if err != nil {
		if kube.IsNotFound(err) {
			return nil
		}
		t.Fatal(err)
	}
	d, _ := obj["data"].(map[string]any)
	return d
}

// TestMirror runs the program on a host and three clusters (kubetest,
// in process): one named on the command line, two from kubeconfig
// Secrets. Every engaged cluster gets the copy; a copy deleted comes
// back at once; a change of the source reaches every copy at once, a
// cluster slow to answer delaying no other; a Secret removed disengages
// its cluster.
func TestMirror(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host, static, one, two := kubetest.New(kubetest.Options{}), kubetest.New(kubetest.Options{}), kubetest.New(kubetest.Options{}), kubetest.New(kubetest.Options{})
		for _, srv := range []*kubetest.Server{host, static, one, two} {
			t.Cleanup(srv.Close)
		}
		byHost := map[string]*kubetest.Server{"https://one.test": one, "https://two.test": two}
		mustCreate := func(gvr kube.GroupVersionResource, obj map[string]any) {
			t.Helper()
			if _, err := host.Create(gvr, obj); err != nil {
				t.Fatal(err)
			}
		}
		source := func(greeting string) map[string]any {
			return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"namespace": "default", "name": "fleet"},
				"data": map[string]any{"greeting": greeting}}
		}
		mustCreate(configMaps, source("hello"))
		mustCreate(kube.GroupVersionResource{Version: "v1", Resource: "namespaces"}, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "fleet-ns"}})
		for _, name := range []string{"one", "two"} {
			mustCreate(secrets, map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"namespace": "fleet-ns", "name": name},
				"data": map[string]any{"kubeconfig": base64.StdEncoding.EncodeToString([]byte(kubeconfigOf("https://"+name+".test", nil)))}})
		}
		s := setup{
			source: kube.Key{Namespace: "default", Name: "fleet"}, secretsNS: "fleet-ns", resync: time.Minute,
			static: map[string]*kube.Config{"static": inProcess(static)},
			configureSecret: func(cfg *kube.Config) (*kube.Config, error) {
				if srv := byHost[cfg.Host]; srv != nil {
					return inProcess(srv), nil
				}
				return nil, fmt.Errorf("no server %s", cfg.Host)
			},
		}
		mgr, f, err := newProgram(inProcess(host), s, manager.Options{MetricsBindAddress: "0"})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- mgr.Start(ctx) }()
		synctest.Wait()

		members := map[string]*kubetest.Server{"static": static, "one": one, "two": two}
		if got := f.Names(); !slices.Equal(got, []string{"one", "static", "two"}) {
			t.Fatalf("engaged %v, want [one static two]", got)
		}
		for name, srv := range members {
			if got := data(t, srv)["greeting"]; got != "hello" {
				t.Errorf("cluster %s: copy's greeting = %v, want hello", name, got)
			}
		}

		if err := one.Delete(configMaps, "default", "fleet"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := data(t, one)["greeting"]; got != "hello" {
			t.Errorf("cluster one, copy deleted: greeting = %v, want it back at once", got)
		}

		// Cluster one answers its writes 30s late: the change of the
		// source reaches the two others at once all the same.
		undo := one.Delay(func(ri kubetest.RequestInfo) bool { return ri.Verb == "patch" || ri.Verb == "update" }, 30*time.Second)
		if _, err := host.Update(configMaps, source("hi")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		for name, srv := range map[string]*kubetest.Server{"static": static, "two": two} {
			if got := data(t, srv)["greeting"]; got != "hi" {
				t.Errorf("cluster %s, at once after the source changed (cluster one slow): greeting = %v, want hi", name, got)
			}
		}
		if got := data(t, one)["greeting"]; got != "hello" {
			t.Errorf("cluster one, its writes held back: greeting = %v, want hello still", got)
		}
		time.Sleep(30 * time.Second)
		synctest.Wait()
		undo()
		if got := data(t, one)["greeting"]; got != "hi" {
			t.Errorf("cluster one, once its write was answered: greeting = %v, want hi", got)
		}

		if err := host.Delete(secrets, "fleet-ns", "two"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := f.Names(); !slices.Equal(got, []string{"one", "static"}) {
			t.Errorf("Secret two removed: engaged %v, want [one static]", got)
		}
		if err := two.Delete(configMaps, "default", "fleet"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(s.resync)
		synctest.Wait()
		if got := data(t, two); got != nil {
			t.Errorf("cluster two, disengaged: its copy came back (%v)", got)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Start: %v", err)
		}
	})
}

// TestFlags checks the exit code of bad command lines.
func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--configmap", "nonamespace"},
		{"--cluster", "noequals"},
		{"--cluster", "x=/nonexistent/kubeconfig"},
		{"--no-such-flag"},
	} {
		if got := run(context.Background(), args, &discard{}); got != 2 {
			t.Errorf("run(%q) = %d, want 2", args, got)
		}
	}
}

type discard struct{}

func (*discard) Write(p []byte) (int, error) { return len(p), nil }
