// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestPermissionsCheck: with Options.Permissions, Start asks first and,
// when the manager may not watch what it caches or write its Lease and
// Events, fails naming the rules to add, having started nothing; allowed
// everything, it starts.
func TestPermissionsCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		denied [][2]string // verb, resource
		want   []string
	}{
		{name: "allowed"},
		{name: "denied", denied: [][2]string{{"watch", "configmaps"}, {"update", "leases.coordination.k8s.io"},
			{"patch", "events.events.k8s.io"}},
			want: []string{"the manager may not do what it will do; add to its roles:\n" +
				"# a ClusterRole (all namespaces)\n" +
				"- apiGroups: [\"\"]\n  resources: [configmaps]\n  verbs: [watch]\n" +
				"- apiGroups: [\"events.k8s.io\"]\n  resources: [events]\n  verbs: [patch]\n" +
				"# a Role in namespace kube-system (or a ClusterRole)\n" +
				"- apiGroups: [\"coordination.k8s.io\"]\n  resources: [leases]\n  verbs: [update]\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := kubetest.New(kubetest.Options{Tokens: map[string]string{"tok-admin": "admin", "tok-op": "op"}})
			defer srv.Close()
			for _, d := range tc.denied {
				srv.Deny("op", d[0], d[1])
			}
			m, err := newManager(srv.ConfigFor("op"), Options{MetricsBindAddress: "0", Permissions: PermissionsCheck{},
				LeaderElection: LeaderElectionOptions{LeaseName: "op", Namespace: "kube-system"}}, "/nonexistent")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.GetInformer(context.Background(), &kube.ConfigMap{}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			r := make(chan error, 1)
			go func() { r <- m.Start(ctx) }()
			if tc.want == nil {
				<-m.Elected()
				cancel()
				if err := <-r; err != nil {
					t.Fatalf("Start: %v", err)
				}
				return
			}
			defer cancel()
			err = <-r
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("Start: %v\nwant an error containing:\n%s", err, w)
				}
			}
			if n := srv.Count("list", "configmaps") + srv.Count("watch", "configmaps"); n != 0 {
				t.Errorf("%d lists and watches of ConfigMaps after the check failed, want none: nothing started", n)
			}
		})
	}
}
