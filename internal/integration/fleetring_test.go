// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"context"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// runningClusters matches the series a replica of cmd/fleet serves for
// each cluster running on it.
var runningClusters = regexp.MustCompile(`kubeloop_fleet_cache_objects\{cluster="([^"]+)"`)

// TestFleetRingProcesses runs three replicas of cmd/fleet with
// --ring-namespace on the real kube-apiserver, sharing six clusters
// engaged from kubeconfig Secrets (the server at
// KUBELOOP_SECOND_KUBECONFIG under six names, or the harness's own): each
// cluster runs on exactly one replica (read from each replica's
// kubeloop_fleet_cache_objects series); after kill -9 of the replica
// running the most, the two left run all six, each once, within the
// ring's bound for a death (LeaseDuration + RetryPeriod, 17s, plus a few
// Lease requests).
func TestFleetRingProcesses(t *testing.T) {
	h := harnessFromEnv(t)
	admin, _ := loadConfigs(t)
	c, err := kube.NewClient(admin, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clustersAt := os.Getenv("KUBELOOP_SECOND_KUBECONFIG")
	if clustersAt == "" {
		clustersAt = h.Kubeconfig
		t.Log("no KUBELOOP_SECOND_KUBECONFIG: the six clusters are the harness's one server under six names")
	}
	kubeconfig := secretKubeconfig(t, clustersAt)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bin := buildProgram(t, ctx, "fleet")

	ns := "fleet-ring-" + randomName()
	if err := c.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}})
	})
	if err := c.Create(ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "source"}, Data: map[string]string{"a": "b"}}); err != nil {
		t.Fatal(err)
	}
	var clusters []string
	for i := range 6 {
		name := fmt.Sprintf("cluster-%d", i)
		clusters = append(clusters, name)
		if err := c.Create(ctx, &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: name}, Data: map[string][]byte{"kubeconfig": kubeconfig}}); err != nil {
			t.Fatal(err)
		}
	}
	replicas := map[string]*process{}
	for _, id := range []string{"r1", "r2", "r3"} {
		replicas[id] = startProgram(t, ctx, "fleet "+id, bin, "--kubeconfig", h.Kubeconfig, "--configmap", ns+"/source",
			"--secrets-namespace", ns, "--ring-namespace", ns, "--identity", id, "--resync", "1h")
	}

	// onceEach reads where each cluster runs, and fails unless each runs
	// on exactly one of the replicas live.
	onceEach := func(live []string) (map[string][]string, error) {
		where := map[string][]string{}
		for _, id := range live {
			m, err := replicas[id].metrics()
			if err != nil {
				return nil, err
			}
			for _, match := range runningClusters.FindAllStringSubmatch(m, -1) {
				if !slices.Contains(where[match[1]], id) {
					where[match[1]] = append(where[match[1]], id)
				}
			}
		}
		for _, name := range clusters {
			if len(where[name]) != 1 {
				return where, fmt.Errorf("cluster %s runs on %v", name, where[name])
			}
		}
		return where, nil
	}
	var where map[string][]string
	waitFor(t, ctx, "each cluster on one replica of three", func() (err error) {
		where, err = onceEach(slices.Sorted(maps.Keys(replicas)))
		return err
	})
	per := map[string]int{}
	for _, ids := range where {
		per[ids[0]]++
	}
	t.Logf("clusters per replica: %v", per)
	victim := "r1"
	for id, n := range per {
		if n > per[victim] {
			victim = id
		}
	}
	var live []string
	for id := range replicas {
		if id != victim {
			live = append(live, id)
		}
	}
	killed := time.Now()
	if err := replicas[victim].cmd.Process.Kill(); err != nil { // SIGKILL: no release, no goodbye
		t.Fatal(err)
	}
	<-replicas[victim].exited
	waitFor(t, ctx, "each cluster on one of the two replicas left", func() (err error) {
		where, err = onceEach(live)
		return err
	})
	took := time.Since(killed)
	t.Logf("kill -9 of %s (%d clusters): all six running on %v again after %v", victim, per[victim], live, took.Round(100*time.Millisecond))
	if took > 30*time.Second {
		t.Errorf("clusters of the killed replica taken over after %v, want within LeaseDuration + RetryPeriod (17s) and a few requests", took)
	}
}
