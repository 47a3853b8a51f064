// SPDX-License-Identifier: Apache-2.0

package fleet

import (
	"maps"
	"slices"

	"github.com/kubeloop/kubeloop/manager"
)

// CollectMetrics writes the fleet's series to a scrape of the manager's
// metrics endpoint ([New] adds it there):
//
//   - kubeloop_fleet_clusters (gauge): clusters engaged now;
//   - kubeloop_fleet_clusters_running (gauge): those running on this
//     replica (all of them without a ring);
//   - kubeloop_fleet_engaged_total and kubeloop_fleet_disengaged_total
//     (counters): clusters engaged and disengaged so far (an Engage of
//     a name engaged counts one of each);
//   - kubeloop_fleet_clusters_limit (gauge): Options.MaxClusters, and
//     kubeloop_fleet_clusters_refused_total (counter): the Engage calls
//     refused because that many clusters were engaged (a provider that
//     retries counts once a retry);
//   - kubeloop_fleet_cache_objects{cluster,group,version,kind} and
//     kubeloop_fleet_cache_bytes{...} (gauges): what the cache of each
//     cluster running here holds, per kind.
//
// The controllers built with controller.Builder.Clusters add
// kubeloop_fleet_reconcile_total{controller,cluster,result}. A cluster's
// series go with it when it is disengaged.
func (f *Fleet) CollectMetrics(e manager.MetricsEmitter) {
	if !f.made() {
		return
	}
	f.mu.Lock()
	n := len(f.members)
	running := map[string]*Cluster{}
	for name, m := range f.members {
		if m.run != nil {
			running[name] = m.run.c
		}
	}
	engaged, disengaged, refused := f.engaged, f.disengaged, f.refused
	f.mu.Unlock()
	e.Gauge("kubeloop_fleet_clusters", "Number of clusters engaged in the fleet", float64(n))
	e.Gauge("kubeloop_fleet_clusters_running", "Number of clusters engaged whose cache and controllers run on this replica (all of them without a ring)", float64(len(running)))
	e.Counter("kubeloop_fleet_engaged_total", "Total number of clusters engaged in the fleet", float64(engaged))
	e.Counter("kubeloop_fleet_disengaged_total", "Total number of clusters disengaged from the fleet", float64(disengaged))
	e.Gauge("kubeloop_fleet_clusters_limit", "Most clusters the fleet engages at once (Options.MaxClusters)", float64(f.opts.MaxClusters))
	e.Counter("kubeloop_fleet_clusters_refused_total", "Total number of Engage calls refused because the fleet had as many clusters engaged as its limit", float64(refused))
	type kindKey struct{ group, version, kind string }
	for _, name := range slices.Sorted(maps.Keys(running)) {
		objects, bytes := map[kindKey]float64{}, map[kindKey]float64{}
		for _, s := range running[name].Cache().Stats() {
			k := kindKey{s.Kind.Group, s.Kind.Version, s.Kind.Kind}
			objects[k] += float64(s.Objects)
			bytes[k] += float64(s.Bytes)
		}
		for k, n := range objects {
			l := []string{"cluster", name, "group", k.group, "version", k.version, "kind", k.kind}
			e.Gauge("kubeloop_fleet_cache_objects", "Number of objects a cluster's cache holds, per kind", n, l...)
			e.Gauge("kubeloop_fleet_cache_bytes", "Approximate bytes of the objects a cluster's cache holds (the JSON they were decoded from), per kind", bytes[k], l...)
		}
	}
}
