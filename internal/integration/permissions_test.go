// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// TestPermissionsCheck: on kube-apiserver with RBAC, a manager with
// Options.Permissions started as a user granted nothing fails at once,
// naming every rule it needs, and starts as admin. (TestWidgetEndToEnd
// runs the check with cmd/widget/rbac.yaml alone granted.)
func TestPermissionsCheck(t *testing.T) {
	admin, denied := loadConfigs(t)
	for _, tc := range []struct {
		name string
		cfg  *kube.Config
		want string
	}{
		{"granted nothing", denied, "add to its roles:\n# a ClusterRole (all namespaces)\n" +
			"- apiGroups: [\"\"]\n  resources: [configmaps]\n  verbs: [list, watch]\n" +
			"- apiGroups: [\"events.k8s.io\"]\n  resources: [events]\n  verbs: [create, patch]\n" +
			"# a Role in namespace default (or a ClusterRole)\n" +
			"- apiGroups: [\"coordination.k8s.io\"]\n  resources: [leases]\n  verbs: [get, create, update]\n"},
		{"admin", admin, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			m, err := manager.New(tc.cfg, manager.Options{MetricsBindAddress: "0", Permissions: manager.PermissionsCheck{},
				LeaderElection: manager.LeaderElectionOptions{LeaseName: "permissions-" + randomName(), Namespace: "default"}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.GetInformer(ctx, &kube.ConfigMap{}); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- m.Start(ctx) }()
			if tc.want == "" {
				select {
				case <-m.Elected():
				case err := <-done:
					t.Fatalf("Start: %v", err)
				}
				cancel()
				if err := <-done; err != nil {
					t.Fatalf("Start: %v", err)
				}
				return
			}
			if err := <-done; err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Start: %v\nwant an error containing:\n%s", err, tc.want)
			}
		})
	}
}
