// SPDX-License-Identifier: Apache-2.0

package fleet_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/fleet"
)

var secrets = kube.GroupVersionResource{Version: "v1", Resource: "secrets"}

// kubeconfig is a kubeconfig of the server at host.
func kubeconfig(host string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
contexts:
- name: c
  context:
    cluster: c
current-context: c
`, host)
}

// secret is a Secret of namespace fleet holding data at key kubeconfig,
// with labels.
func secret(name, data string, labels map[string]any) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"namespace": "fleet", "name": name, "labels": labels},
		"data":     map[string]any{"kubeconfig": base64.StdEncoding.EncodeToString([]byte(data))}}
}

// TestSecretsProvider engages, engages again and disengages clusters as
// their kubeconfig Secrets are added, changed and removed.
func TestSecretsProvider(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := newServer(t, 0)
		if _, err := host.Create(kube.GroupVersionResource{Version: "v1", Resource: "namespaces"},
			map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "fleet"}}); err != nil {
			t.Fatal(err)
		}
		// The kubeconfigs name https://<x>.test; Configure gives the
		// in-process transport of server x.
		servers := map[string]*kubetest.Server{"https://a.test": newServer(t, 1), "https://b.test": newServer(t, 1), "https://c.test": newServer(t, 1)}
		configure := func(cfg *kube.Config) (*kube.Config, error) {
			srv := servers[cfg.Host]
			if srv == nil {
				return nil, fmt.Errorf("no server %s", cfg.Host)
			}
			return config(srv), nil
		}
		mgr, err := manager.New(config(host), manager.Options{MetricsBindAddress: "0"})
		if err != nil {
			t.Fatal(err)
		}
		f, err := fleet.New(mgr, fleet.Options{Providers: []fleet.Provider{
			fleet.Secrets{Client: mgr.APIClient(), Namespace: "fleet", Configure: configure},
		}})
		if err != nil {
			t.Fatal(err)
		}
		err = controller.NewBuilder(mgr).For(&kube.ConfigMap{}).Clusters(f).Complete(controller.ReconcilerFunc(
			func(ctx context.Context, req controller.Request) (controller.Result, error) {
				cl := fleet.ClusterFrom(ctx)
				var cm kube.ConfigMap
				if err := cl.Client().Get(ctx, req.Key, &cm); err != nil {
					return controller.Result{}, kube.IgnoreNotFound(err)
				}
				patch := kube.Patch{Type: kube.MergePatch, Data: fmt.Appendf(nil, `{"metadata":{"labels":{"seen":%q}}}`, cl.Name())}
				return controller.Result{}, cl.Client().Patch(ctx, &cm, patch)
			}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := host.Create(secrets, secret("a", kubeconfig("https://a.test"), nil)); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- mgr.Start(ctx) }()
		synctest.Wait()

		names := func(want ...string) {
			t.Helper()
			if got := f.Names(); !slices.Equal(got, want) {
				t.Fatalf("Names() = %v, want %v", got, want)
			}
		}
		names("a")
		if got := label(t, servers["https://a.test"], "app-0"); got != "a" {
			t.Errorf("a's app-0: label seen = %q, want a", got)
		}

		// A Secret added engages its cluster.
		if _, err := host.Create(secrets, secret("b", kubeconfig("https://b.test"), nil)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		names("a", "b")
		if got := label(t, servers["https://b.test"], "app-0"); got != "b" {
			t.Errorf("b's app-0: label seen = %q, want b", got)
		}

		// A change of a Secret's labels alone leaves its cluster as it is.
		a, _ := f.Cluster("a")
		if _, err := host.Update(secrets, secret("a", kubeconfig("https://a.test"), map[string]any{"team": "x"})); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if again, _ := f.Cluster("a"); again != a {
			t.Errorf("a's Secret relabelled: cluster a engaged again, want it kept")
		}

		// A changed kubeconfig engages the cluster again, on the new
		// server, once ReengageInterval has passed since b was engaged.
		b, _ := f.Cluster("b")
		if _, err := host.Update(secrets, secret("b", kubeconfig("https://c.test"), nil)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if again, _ := f.Cluster("b"); again != b {
			t.Errorf("b's kubeconfig changed at once after b was engaged: cluster b engaged again before ReengageInterval")
		}
		time.Sleep(fleet.DefaultReengageInterval)
		synctest.Wait()
		names("a", "b")
		if again, _ := f.Cluster("b"); again == b {
			t.Errorf("b's kubeconfig changed: cluster b not engaged again")
		}
		if got := label(t, servers["https://c.test"], "app-0"); got != "b" {
			t.Errorf("c's app-0, now cluster b: label seen = %q, want b", got)
		}

		// A kubeconfig that does not parse disengages; a Secret removed
		// disengages.
		if _, err := host.Update(secrets, secret("b", "clusters: [", nil)); err != nil {
			t.Fatal(err)
		}
		if err := host.Delete(secrets, "fleet", "a"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		names()

		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Start: %v", err)
		}
	})
}
