// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"testing"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// testWatchErrorHandler runs a manager as a user RBAC denies: the
// WatchErrorHandler of manager.Options.Cache hears the server's refusal of
// the ConfigMap informer's reads (403 Forbidden, naming the user and the
// resource), with the kind, while the informer goes on retrying.
func testWatchErrorHandler(t *testing.T, f *fixture) {
	if f.env.DeniedConfig == nil {
		t.Fatal("the environment has no denied user: this scenario cannot run")
	}
	type failure struct {
		kind kube.GroupVersionKind
		err  error
	}
	failures := make(chan failure, 1)
	m, err := manager.New(f.env.DeniedConfig, manager.Options{
		MetricsBindAddress: "0",
		Cache: cache.Options{
			Namespaces: []string{f.ns},
			WatchErrorHandler: func(kind kube.GroupVersionKind, err error) {
				select {
				case failures <- failure{kind, err}:
				default:
				}
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.run(t, "manager", m.Start)()
	if _, err := m.GetInformer(f.ctx, &kube.ConfigMap{}); err != nil {
		t.Fatalf("GetInformer(ConfigMap) as the denied user = %v", err)
	}
	var got failure
	select {
	case got = <-failures:
	case <-f.ctx.Done():
		t.Fatal("the WatchErrorHandler heard of no failure")
	}
	if want := (kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}); got.kind != want {
		t.Errorf("WatchErrorHandler kind = %v, want %v", got.kind, want)
	}
	se, ok := kube.AsStatusError(got.err)
	if !ok || se.Status.Code != 403 || se.Status.Reason != kube.ReasonForbidden {
		t.Fatalf("WatchErrorHandler error = %v, want a 403 Forbidden", got.err)
	}
	const want = `configmaps is forbidden: User "denied" cannot list resource "configmaps" in API group "" in the namespace "`
	if msg := se.Status.Message; len(msg) < len(want) || msg[:len(want)] != want {
		t.Errorf("WatchErrorHandler error message = %q, want it to begin %q", msg, want)
	}
}
