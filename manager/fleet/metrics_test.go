// SPDX-License-Identifier: Apache-2.0

package fleet_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/fleet"
	"github.com/kubeloop/kubeloop/queue"
)

// series keeps the series written as "name{label=value,...} value".
type series []string

func (s *series) add(name string, v float64, labels []string) {
	var l []string
	for i := 0; i+1 < len(labels); i += 2 {
		l = append(l, labels[i]+"="+labels[i+1])
	}
	*s = append(*s, fmt.Sprintf("%s{%s} %g", name, strings.Join(l, ","), v))
}

func (s *series) Counter(name, _ string, v float64, labels ...string) { s.add(name, v, labels) }
func (s *series) Gauge(name, _ string, v float64, labels ...string)   { s.add(name, v, labels) }
func (s *series) Histogram(name, _ string, h queue.Histogram, labels ...string) {
	s.add(name, float64(h.Count), labels)
}

// TestMetrics checks the fleet's series: clusters engaged and running,
// engagements, and each running cluster's cached objects.
func TestMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mgr, err := manager.New(config(newServer(t, 0)), manager.Options{MetricsBindAddress: "0"})
		if err != nil {
			t.Fatal(err)
		}
		f, err := fleet.New(mgr, fleet.Options{Providers: []fleet.Provider{fleet.Static{"a": config(newServer(t, 3)), "b": config(newServer(t, 1))}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := controller.NewBuilder(mgr).For(&kube.ConfigMap{}).Clusters(f).Complete(controller.ReconcilerFunc(
			func(context.Context, controller.Request) (controller.Result, error) { return controller.Result{}, nil })); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- mgr.Start(ctx) }()
		synctest.Wait()
		if err := f.Disengage(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		var s series
		f.CollectMetrics(&s)
		// a holds its 3 ConfigMaps in default and the one in kube-system.
		for _, want := range []string{
			"kubeloop_fleet_clusters{} 1",
			"kubeloop_fleet_clusters_running{} 1",
			"kubeloop_fleet_engaged_total{} 2",
			"kubeloop_fleet_disengaged_total{} 1",
			"kubeloop_fleet_cache_objects{cluster=a,group=,version=v1,kind=ConfigMap} 4",
		} {
			if !slices.Contains(s, want) {
				t.Errorf("series %q not among %q", want, s)
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}
