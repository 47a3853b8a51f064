// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/fleet"
)

// secretKubeconfig is the kubeconfig at path as a kubeconfig Secret
// holds it: the files it names (the harness's certificate-authority,
// say) carried as data, which fleet.Secrets' default Policy requires.
func secretKubeconfig(t *testing.T, path string) []byte {
	t.Helper()
	cfg, err := kube.LoadConfig(kube.LoadOptions{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Exec != nil || cfg.ProxyURL != "" || cfg.TLS.Insecure {
		t.Fatalf("kubeconfig %s: an exec plugin, a proxy or insecure-skip-tls-verify cannot go in a kubeconfig Secret", path)
	}
	// inline returns data, or else the contents of file ("" for none).
	inline := func(data []byte, file string) []byte {
		if data == nil && file != "" {
			if data, err = os.ReadFile(file); err != nil {
				t.Fatal(err)
			}
		}
		return data
	}
	b64 := base64.StdEncoding.EncodeToString
	cluster := fmt.Sprintf("server: %q", cfg.Host)
	if ca := inline(cfg.TLS.CAData, cfg.TLS.CAFile); ca != nil {
		cluster += ", certificate-authority-data: " + b64(ca)
	}
	if cfg.TLS.ServerName != "" {
		cluster += fmt.Sprintf(", tls-server-name: %q", cfg.TLS.ServerName)
	}
	token := cfg.BearerToken
	if cfg.BearerTokenFile != "" {
		token = strings.TrimSpace(string(inline(nil, cfg.BearerTokenFile)))
	}
	user := fmt.Sprintf("token: %q", token)
	if cert := inline(cfg.TLS.CertData, cfg.TLS.CertFile); cert != nil {
		user += ", client-certificate-data: " + b64(cert) + ", client-key-data: " + b64(inline(cfg.TLS.KeyData, cfg.TLS.KeyFile))
	}
	if cfg.Username != "" {
		user += fmt.Sprintf(", username: %q, password: %q", cfg.Username, cfg.Password)
	}
	return fmt.Appendf(nil, "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: c, user: u, namespace: %q}\n"+
		"clusters:\n- name: c\n  cluster: {%s}\nusers:\n- name: u\n  user: {%s}\n", cfg.Namespace, cluster, user)
}

// TestFleetEndToEnd runs a fleet on the real kube-apiserver: a manager on
// the harness's server (the host) whose fleet is fed by kubeconfig
// Secrets of a namespace, and a controller that mirrors a ConfigMap of
// the host into every engaged cluster. Secret "one" holds the host's own
// kubeconfig; Secret "two" the kubeconfig at KUBELOOP_SECOND_KUBECONFIG
// (a second harness server:
//
//	harness.sh run -- bash -c 'KUBELOOP_SECOND_KUBECONFIG=$KUBELOOP_KUBECONFIG harness.sh run -- go test ...'
//
// ) or, without one, the host's again: one server engaged twice under
// two names, each cluster's copy going to a namespace of its own. A
// Secret added engages its cluster (its copy appears), a Secret removed
// disengages it (a change of the source then reaches the other cluster
// only).
func TestFleetEndToEnd(t *testing.T) {
	h := harnessFromEnv(t)
	admin, _ := loadConfigs(t)
	host, err := kube.NewClient(admin, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secondPath := os.Getenv("KUBELOOP_SECOND_KUBECONFIG")
	if secondPath == "" {
		secondPath = h.Kubeconfig
		t.Log("no KUBELOOP_SECOND_KUBECONFIG: the harness's one server is engaged twice, as clusters one and two")
	}
	second, err := kube.LoadConfig(kube.LoadOptions{Path: secondPath})
	if err != nil {
		t.Fatal(err)
	}
	secondClient, err := kube.NewClient(second, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	run := randomName()
	home := "fleet-" + run // the Secrets and the source
	target := map[string]string{"one": "fleet-" + run + "-one", "two": "fleet-" + run + "-two"}
	clients := map[string]*kube.Client{"one": host, "two": secondClient}
	create := func(c *kube.Client, obj kube.Object) {
		t.Helper()
		if err := c.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	for _, ns := range []struct {
		c    *kube.Client
		name string
	}{{host, home}, {host, target["one"]}, {secondClient, target["two"]}} {
		create(ns.c, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns.name}})
		t.Cleanup(func() {
			_ = ns.c.Delete(context.Background(), &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns.name}})
		})
	}
	source := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: home, Name: "source"}, Data: map[string]string{"greeting": "hello"}}
	create(host, source)

	mgr, err := manager.New(admin, manager.Options{MetricsBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := fleet.New(mgr, fleet.Options{
		Providers: []fleet.Provider{fleet.Secrets{Client: mgr.APIClient(), Namespace: home}},
		Cache:     cache.Options{Namespaces: slices.Sorted(maps.Values(target))},
	})
	if err != nil {
		t.Fatal(err)
	}
	prefix := "fleet-" + run + "-"
	err = controller.NewBuilder(mgr).Named("fleet-e2e").
		For(&kube.Namespace{}, controller.ObjectFilter(func(o kube.Object) bool { return strings.HasPrefix(o.GetObjectMeta().Name, prefix) })).
		Clusters(f).
		Complete(controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			cl := fleet.ClusterFrom(ctx)
			if req.Name != target[cl.Name()] {
				return controller.Result{}, nil // the other cluster's namespace, on a server engaged twice
			}
			var src kube.ConfigMap
			if err := mgr.APIClient().Get(ctx, kube.Key{Namespace: home, Name: "source"}, &src); err != nil {
				return controller.Result{}, err
			}
			dst := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: req.Name, Name: "copy"}}
			_, err := controller.CreateOrPatch(ctx, cl.Client(), dst, func() error {
				dst.Data = maps.Clone(src.Data)
				return nil
			})
			return controller.Result{RequeueAfter: time.Second}, err
		}))
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Start: %v", err)
		}
	}()

	copyHas := func(cluster, greeting string) func() error {
		return func() error {
			var cm kube.ConfigMap
			if err := clients[cluster].Get(ctx, kube.Key{Namespace: target[cluster], Name: "copy"}, &cm); err != nil {
				return err
			}
			if cm.Data["greeting"] != greeting {
				return fmt.Errorf("greeting %q", cm.Data["greeting"])
			}
			return nil
		}
	}
	for cluster, path := range map[string]string{"one": h.Kubeconfig, "two": secondPath} {
		b := secretKubeconfig(t, path)
		create(host, &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: home, Name: cluster}, Data: map[string][]byte{"kubeconfig": b}})
		waitFor(t, ctx, "the copy in cluster "+cluster, copyHas(cluster, "hello"))
	}
	if got := f.Names(); !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("engaged %v, want [one two]", got)
	}

	if err := host.Delete(ctx, &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: home, Name: "one"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "cluster one disengaged", func() error {
		if got := f.Names(); !slices.Equal(got, []string{"two"}) {
			return fmt.Errorf("engaged %v", got)
		}
		return nil
	})
	source.Data = map[string]string{"greeting": "hi"}
	if err := host.Update(ctx, source); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the change in cluster two", copyHas("two", "hi"))
	if err := copyHas("one", "hello")(); err != nil {
		t.Errorf("cluster one, disengaged: its copy changed (%v), want it left as it was", err)
	}
}
