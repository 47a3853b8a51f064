// SPDX-License-Identifier: Apache-2.0

package fleet_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/fleet"
)

// TestSecretsClusterLimit: 1,000 kubeconfig Secrets engage
// DefaultMaxClusters clusters, the fleet logs the limit once and counts
// the refusals, and a Secret removed makes room for one waiting.
func TestSecretsClusterLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		member := newServer(t, 0)
		var objs []map[string]any
		for i := range 1000 {
			objs = append(objs, secret(fmt.Sprintf("s%04d", i), kubeconfigWith(fmt.Sprintf("server: 'https://s%d.test'", i), "token: t"), nil))
		}
		s := fleet.Secrets{Configure: func(*kube.Config) (*kube.Config, error) { return config(member), nil }}
		sf := runSecrets(t, fleet.Options{}, s, objs...)
		defer sf.stop()

		names := sf.f.Names()
		if len(names) != fleet.DefaultMaxClusters {
			t.Fatalf("1,000 Secrets: %d clusters engaged, want DefaultMaxClusters (%d)", len(names), fleet.DefaultMaxClusters)
		}
		var m series
		sf.f.CollectMetrics(&m)
		if !slices.Contains(m, fmt.Sprintf("kubeloop_fleet_clusters_limit{} %d", fleet.DefaultMaxClusters)) {
			t.Errorf("series %q: want kubeloop_fleet_clusters_limit{} %d", m, fleet.DefaultMaxClusters)
		}
		refused := -1.0
		for _, l := range m {
			fmt.Sscanf(l, "kubeloop_fleet_clusters_refused_total{} %g", &refused)
		}
		if refused < 1000-fleet.DefaultMaxClusters {
			t.Errorf("kubeloop_fleet_clusters_refused_total = %g, want at least %d", refused, 1000-fleet.DefaultMaxClusters)
		}
		if n := strings.Count(sf.logs.String(), "fleet cluster limit reached"); n != 1 {
			t.Errorf("the limit logged %d times, want once", n)
		}

		// A Secret removed makes room for one that waits.
		gone := names[0]
		if err := sf.host.Delete(secrets, "fleet", gone); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		after := sf.f.Names()
		if len(after) != fleet.DefaultMaxClusters || slices.Contains(after, gone) {
			t.Errorf("Secret %s removed: %d clusters engaged (%s among them: %v), want %d, without it",
				gone, len(after), gone, slices.Contains(after, gone), fleet.DefaultMaxClusters)
		}
	})
}

// TestSecretsChangingInLoop: a Secret whose kubeconfig changes 100
// times in ten seconds, or flips between one allowed and one refused,
// engages its cluster a bounded number of times (at most once per
// ReengageInterval), ending with the last kubeconfig.
func TestSecretsChangingInLoop(t *testing.T) {
	for _, flip := range []bool{false, true} {
		t.Run(fmt.Sprintf("refused every other time=%v", flip), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				member := newServer(t, 0)
				s := fleet.Secrets{Configure: func(cfg *kube.Config) (*kube.Config, error) {
					c := config(member)
					c.Namespace = cfg.Namespace
					return c, nil
				}}
				kc := func(i int) string {
					if flip && i%2 == 0 {
						return kubeconfigWith("server: 'http://plain.test'", "token: t") // refused
					}
					return strings.Replace(kubeconfigWith("server: 'https://member.test'", "token: t"), "namespace: default", fmt.Sprintf("namespace: n%d", i), 1)
				}
				sf := runSecrets(t, fleet.Options{}, s, secret("a", kc(1), nil))
				defer sf.stop()
				start := time.Now()
				for i := range 100 {
					time.Sleep(100 * time.Millisecond)
					if _, err := sf.host.Update(secrets, secret("a", kc(i), nil)); err != nil {
						t.Fatal(err)
					}
					synctest.Wait()
				}
				time.Sleep(fleet.DefaultReengageInterval)
				synctest.Wait()
				engaged, last, disengaged := sf.rec.counts()
				most := 2 + int(time.Since(start)/fleet.DefaultReengageInterval)
				if engaged > most || disengaged > engaged {
					t.Errorf("100 changes in %v: %d engagements, %d disengagements, want at most %d and at most as many", time.Since(start), engaged, disengaged, most)
				}
				if last == nil || last.Namespace != "n99" || !slices.Equal(sf.f.Names(), []string{"a"}) {
					t.Errorf("engaged %v, the last with %+v, want a with the last kubeconfig (namespace n99)", sf.f.Names(), last)
				}
			})
		})
	}
}
