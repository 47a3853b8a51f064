// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/queue"
)

// testClusters is a fixed set of clusters, each of which the test can
// disengage; the engage context carries the cluster's name.
type testClusters struct {
	clusters map[string]Cluster

	mu      sync.Mutex
	cancels map[string]context.CancelFunc
	ended   map[string]chan struct{}
}

type clusterName struct{}

func (s *testClusters) Watch(ctx context.Context, engage func(ctx context.Context, name string, c Cluster)) {
	var wg sync.WaitGroup
	s.mu.Lock()
	s.cancels, s.ended = map[string]context.CancelFunc{}, map[string]chan struct{}{}
	for name, c := range s.clusters {
		cctx, cancel := context.WithCancel(context.WithValue(ctx, clusterName{}, name))
		ended := make(chan struct{})
		s.cancels[name], s.ended[name] = cancel, ended
		wg.Go(func() {
			defer close(ended)
			engage(cctx, name, c)
		})
	}
	s.mu.Unlock()
	<-ctx.Done()
	wg.Wait()
}

// disengage ends the engagement of name and waits for it.
func (s *testClusters) disengage(name string) {
	s.mu.Lock()
	cancel, ended := s.cancels[name], s.ended[name]
	s.mu.Unlock()
	cancel()
	<-ended
}

// series is an emitter that keeps the series written, as
// "name{label=value,...}".
type series struct{ got []string }

func (s *series) add(name string, labels []string) {
	var l []string
	for i := 0; i+1 < len(labels); i += 2 {
		l = append(l, labels[i]+"="+labels[i+1])
	}
	slices.Sort(l)
	s.got = append(s.got, name+"{"+strings.Join(l, ",")+"}")
}

func (s *series) Counter(name, _ string, _ float64, labels ...string) { s.add(name, labels) }
func (s *series) Gauge(name, _ string, _ float64, labels ...string)   { s.add(name, labels) }
func (s *series) Histogram(name, _ string, _ queue.Histogram, labels ...string) {
	s.add(name, labels)
}

func TestBuilderClusters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set := &testClusters{clusters: map[string]Cluster{}}
		for _, name := range []string{"a", "b"} {
			srv, client := newServer(t)
			createCM(t, srv, cm{ns: "default", name: "x-" + name})
			set.clusters[name] = newTestManager(t, client)
		}
		_, host := newServer(t)
		mgr := newTestManager(t, host)
		var mu sync.Mutex
		seen := map[string][]string{} // cluster: keys reconciled
		c, err := NewBuilder(mgr).For(&kube.ConfigMap{}).Clusters(set).Build(ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
			mu.Lock()
			defer mu.Unlock()
			name := ctx.Value(clusterName{}).(string)
			seen[name] = append(seen[name], req.String())
			return Result{}, nil
		}))
		if err != nil || c != nil {
			t.Fatalf("Build = %v, %v; want nil, nil (a controller for each cluster)", c, err)
		}
		for _, m := range set.clusters {
			run(t, m.(*testManager).cache.Start)
		}
		mgr.start(t)
		synctest.Wait()
		mu.Lock()
		got := maps.Clone(seen)
		mu.Unlock()
		for _, name := range []string{"a", "b"} {
			if !slices.Contains(got[name], "default/x-"+name) || slices.Contains(got[name], "default/x-"+map[string]string{"a": "b", "b": "a"}[name]) {
				t.Errorf("cluster %s reconciled %v, want its own default/x-%s only", name, got[name], name)
			}
		}

		collect := func() []string {
			var s series
			mgr.added["configmap"].(interface{ CollectMetrics(emitter) }).CollectMetrics(&s)
			return s.got
		}
		total := func(cluster string) string {
			return fmt.Sprintf("controller_runtime_reconcile_total{cluster=%s,controller=configmap,result=success}", cluster)
		}
		if m := collect(); !slices.Contains(m, total("a")) || !slices.Contains(m, total("b")) {
			t.Errorf("metrics = %v, want %s and %s", m, total("a"), total("b"))
		}
		set.disengage("b")
		if m := collect(); !slices.Contains(m, total("a")) || slices.Contains(m, total("b")) {
			t.Errorf("metrics after b left = %v, want %s and none of b", m, total("a"))
		}
	})
}

func TestBuilderClustersErrors(t *testing.T) {
	_, client := newServer(t)
	mgr := newTestManager(t, client)
	set := &testClusters{}
	for _, tc := range []struct {
		name string
		b    *Builder
		want string
	}{
		{"nil set", NewBuilder(mgr).For(&kube.ConfigMap{}).Clusters(nil), "Clusters: set is nil"},
		{"sharded", NewBuilder(mgr).For(&kube.ConfigMap{}).Clusters(set).Sharded(), "Clusters and Sharded together"},
		{"source", NewBuilder(mgr).For(&kube.ConfigMap{}).Named("src").Clusters(set).WatchesSource(Channel(make(chan Change), EnqueueObject())), "WatchesSource and Clusters together"},
		{"options", NewBuilder(mgr).For(&kube.ConfigMap{}).Named("opts").Clusters(set).WithOptions(Options{MaxConcurrentReconciles: -1}), "MaxConcurrentReconciles is -1"},
		{"watches in before clusters", NewBuilder(mgr).For(&kube.ConfigMap{}).WatchesIn(mgr, &kube.ConfigMap{}, func(context.Context, string, kube.Object) []Request { return nil }), "WatchesIn *kube.ConfigMap: call Clusters first"},
		{"watches in nil cluster", NewBuilder(mgr).For(&kube.ConfigMap{}).Clusters(set).WatchesIn((*testManager)(nil), &kube.ConfigMap{}, func(context.Context, string, kube.Object) []Request { return nil }), "WatchesIn *kube.ConfigMap: cluster is nil"},
		{"watches in nil func", NewBuilder(mgr).For(&kube.ConfigMap{}).Clusters(set).WatchesIn(mgr, &kube.ConfigMap{}, nil), "map function is nil"},
		{"filter before clusters", NewBuilder(mgr).For(&kube.ConfigMap{}).ClusterFilter(func(string) bool { return true }), "ClusterFilter: call Clusters first"},
		{"nil filter", NewBuilder(mgr).For(&kube.ConfigMap{}).Clusters(set).ClusterFilter(nil), "ClusterFilter: keep is nil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.b.Complete(ReconcilerFunc(func(context.Context, Request) (Result, error) { return Result{}, nil })); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Complete = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestBuilderClustersWatchesIn: a change of the hub's object reaches the
// controller of every cluster the filter keeps, each with its own
// request, and none of a cluster it leaves out.
func TestBuilderClustersWatchesIn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set := &testClusters{clusters: map[string]Cluster{}}
		for _, name := range []string{"a", "b", "skipped"} {
			_, client := newServer(t)
			set.clusters[name] = newTestManager(t, client)
		}
		hubSrv, host := newServer(t)
		createCM(t, hubSrv, cm{ns: "default", name: "source"})
		hub := newTestManager(t, host)
		var mu sync.Mutex
		seen := map[string][]string{} // cluster: keys reconciled
		err := NewBuilder(hub).For(&kube.ConfigMap{}).Clusters(set).
			ClusterFilter(func(name string) bool { return name != "skipped" }).
			WatchesIn(hub, &kube.ConfigMap{}, func(_ context.Context, cluster string, obj kube.Object) []Request {
				return []Request{{Key: kube.Key{Namespace: "default", Name: obj.GetObjectMeta().Name + "-copy-in-" + cluster}}}
			}).
			Complete(ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
				mu.Lock()
				defer mu.Unlock()
				name := ctx.Value(clusterName{}).(string)
				seen[name] = append(seen[name], req.String())
				return Result{}, nil
			}))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range set.clusters {
			run(t, m.(*testManager).cache.Start)
		}
		hub.start(t)
		synctest.Wait()
		mu.Lock()
		got := maps.Clone(seen)
		mu.Unlock()
		for _, name := range []string{"a", "b"} {
			if want := "default/source-copy-in-" + name; !slices.Equal(got[name], []string{want}) {
				t.Errorf("cluster %s reconciled %v, want [%s]: the hub's object mapped for it", name, got[name], want)
			}
		}
		if got["skipped"] != nil {
			t.Errorf("the cluster the filter leaves out reconciled %v", got["skipped"])
		}
	})
}
