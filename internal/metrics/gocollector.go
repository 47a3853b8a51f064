// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"time"
)

// GoCollector emits the go_* metrics that the Prometheus Go client's Go
// collector serves by default (client_golang 1.23, as controller-runtime
// registers it), with the same names, types, help texts and meanings, so
// that dashboards and alerts built on them work unchanged:
//
//   - go_goroutines, go_threads, go_info{version}
//   - go_gc_duration_seconds, a summary of stop-the-world GC pauses
//     (quantiles 0, 0.25, 0.5, 0.75, 1 of the recent pauses; count and sum
//     of all of them)
//   - go_memstats_*: the runtime.MemStats names the Go client still
//     serves, computed from runtime/metrics as it does (no
//     stop-the-world ReadMemStats), and go_memstats_last_gc_time_seconds
//   - go_gc_gogc_percent, go_gc_gomemlimit_bytes and
//     go_sched_gomaxprocs_threads, from runtime/metrics, whose help is the
//     runtime's own description
//
// A scrape costs one runtime/metrics read and one debug.ReadGCStats; it
// allocates a few kilobytes and stops nothing. It is safe for concurrent
// scrapes.
func GoCollector() Collector { return CollectorFunc(collectGo) }

// The runtime/metrics the go_memstats_* values are computed from.
const (
	rmTinyAllocs    = "/gc/heap/tiny/allocs:objects"
	rmAllocsObjects = "/gc/heap/allocs:objects"
	rmFreesObjects  = "/gc/heap/frees:objects"
	rmAllocsBytes   = "/gc/heap/allocs:bytes"
	rmHeapObjects   = "/gc/heap/objects:objects"
	rmHeapGoal      = "/gc/heap/goal:bytes"
	rmTotal         = "/memory/classes/total:bytes"
	rmHeapInUse     = "/memory/classes/heap/objects:bytes"
	rmHeapUnused    = "/memory/classes/heap/unused:bytes"
	rmHeapReleased  = "/memory/classes/heap/released:bytes"
	rmHeapFree      = "/memory/classes/heap/free:bytes"
	rmStacks        = "/memory/classes/heap/stacks:bytes"
	rmOSStacks      = "/memory/classes/os-stacks:bytes"
	rmMSpanInUse    = "/memory/classes/metadata/mspan/inuse:bytes"
	rmMSpanFree     = "/memory/classes/metadata/mspan/free:bytes"
	rmMCacheInUse   = "/memory/classes/metadata/mcache/inuse:bytes"
	rmMCacheFree    = "/memory/classes/metadata/mcache/free:bytes"
	rmProfBuckets   = "/memory/classes/profiling/buckets:bytes"
	rmMetadataOther = "/memory/classes/metadata/other:bytes"
	rmOther         = "/memory/classes/other:bytes"
	rmGOGC          = "/gc/gogc:percent"
	rmGOMEMLIMIT    = "/gc/gomemlimit:bytes"
	rmGOMAXPROCS    = "/sched/gomaxprocs:threads"
)

const memstatsNameRoot = "go_memstats_"

var goSampleNames = []string{rmTinyAllocs, rmAllocsObjects, rmFreesObjects, rmAllocsBytes, rmHeapObjects, rmHeapGoal,
	rmTotal, rmHeapInUse, rmHeapUnused, rmHeapReleased, rmHeapFree, rmStacks, rmOSStacks, rmMSpanInUse, rmMSpanFree,
	rmMCacheInUse, rmMCacheFree, rmProfBuckets, rmMetadataOther, rmOther, rmGOGC, rmGOMEMLIMIT, rmGOMAXPROCS}

// goRuntimeGauges are the runtime/metrics the Go client serves as they
// are by default, with the names it derives from them.
var goRuntimeGauges = []struct{ sample, name string }{
	{rmGOGC, "go_gc_gogc_percent"},
	{rmGOMEMLIMIT, "go_gc_gomemlimit_bytes"},
	{rmGOMAXPROCS, "go_sched_gomaxprocs_threads"},
}

func collectGo(e *Emitter) {
	e.Gauge("go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine()))
	threads, _ := runtime.ThreadCreateProfile(nil)
	e.Gauge("go_threads", "Number of OS threads created.", float64(threads))
	e.Gauge("go_info", "Information about the Go environment.", 1, "version", runtime.Version())

	var gc debug.GCStats
	gc.PauseQuantiles = make([]time.Duration, 5) // min, 25%, 50%, 75%, max
	debug.ReadGCStats(&gc)
	s := Summary{Count: uint64(gc.NumGC), Sum: gc.PauseTotal.Seconds()}
	for i, q := range gc.PauseQuantiles {
		s.Quantiles = append(s.Quantiles, Quantile{Q: float64(i) / 4, Value: q.Seconds()})
	}
	e.Summary("go_gc_duration_seconds", "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", s)
	e.Gauge(memstatsNameRoot+"last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.",
		float64(gc.LastGC.UnixNano())/1e9)

	samples := make([]rtmetrics.Sample, len(goSampleNames))
	for i, n := range goSampleNames {
		samples[i].Name = n
	}
	rtmetrics.Read(samples)
	v := make(map[string]float64, len(samples))
	for _, s := range samples {
		switch s.Value.Kind() {
		case rtmetrics.KindUint64:
			v[s.Name] = float64(s.Value.Uint64())
		case rtmetrics.KindFloat64:
			v[s.Name] = s.Value.Float64()
		}
	}
	collectMemstats(e, v)

	descriptions := map[string]string{}
	for _, d := range rtmetrics.All() {
		descriptions[d.Name] = d.Description
	}
	for _, g := range goRuntimeGauges {
		if _, ok := v[g.sample]; ok {
			e.Gauge(g.name, descriptions[g.sample]+" Sourced from "+g.sample+".", v[g.sample])
		}
	}
}

// collectMemstats emits the go_memstats_* values, each computed from
// runtime/metrics as its help text says.
func collectMemstats(e *Emitter, v map[string]float64) {
	heapAlloc := v[rmHeapInUse]
	heapInuse := heapAlloc + v[rmHeapUnused]
	heapIdle := v[rmHeapReleased] + v[rmHeapFree]
	for _, m := range []struct {
		name, help string
		counter    bool
		value      float64
	}{
		{"alloc_bytes", "Number of bytes allocated in heap and currently in use. Equals to /memory/classes/heap/objects:bytes.", false, heapAlloc},
		{"alloc_bytes_total", "Total number of bytes allocated in heap until now, even if released already. Equals to /gc/heap/allocs:bytes.", true, v[rmAllocsBytes]},
		{"sys_bytes", "Number of bytes obtained from system. Equals to /memory/classes/total:byte.", false, v[rmTotal]},
		{"mallocs_total", "Total number of heap objects allocated, both live and gc-ed. Semantically a counter version for go_memstats_heap_objects gauge. Equals to /gc/heap/allocs:objects + /gc/heap/tiny/allocs:objects.", true, v[rmAllocsObjects] + v[rmTinyAllocs]},
		{"frees_total", "Total number of heap objects frees. Equals to /gc/heap/frees:objects + /gc/heap/tiny/allocs:objects.", true, v[rmFreesObjects] + v[rmTinyAllocs]},
		{"heap_alloc_bytes", "Number of heap bytes allocated and currently in use, same as go_memstats_alloc_bytes. Equals to /memory/classes/heap/objects:bytes.", false, heapAlloc},
		{"heap_sys_bytes", "Number of heap bytes obtained from system. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes + /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", false, heapInuse + heapIdle},
		{"heap_idle_bytes", "Number of heap bytes waiting to be used. Equals to /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", false, heapIdle},
		{"heap_inuse_bytes", "Number of heap bytes that are in use. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes", false, heapInuse},
		{"heap_released_bytes", "Number of heap bytes released to OS. Equals to /memory/classes/heap/released:bytes.", false, v[rmHeapReleased]},
		{"heap_objects", "Number of currently allocated objects. Equals to /gc/heap/objects:objects.", false, v[rmHeapObjects]},
		{"stack_inuse_bytes", "Number of bytes obtained from system for stack allocator in non-CGO environments. Equals to /memory/classes/heap/stacks:bytes.", false, v[rmStacks]},
		{"stack_sys_bytes", "Number of bytes obtained from system for stack allocator. Equals to /memory/classes/heap/stacks:bytes + /memory/classes/os-stacks:bytes.", false, v[rmStacks] + v[rmOSStacks]},
		{"mspan_inuse_bytes", "Number of bytes in use by mspan structures. Equals to /memory/classes/metadata/mspan/inuse:bytes.", false, v[rmMSpanInUse]},
		{"mspan_sys_bytes", "Number of bytes used for mspan structures obtained from system. Equals to /memory/classes/metadata/mspan/inuse:bytes + /memory/classes/metadata/mspan/free:bytes.", false, v[rmMSpanInUse] + v[rmMSpanFree]},
		{"mcache_inuse_bytes", "Number of bytes in use by mcache structures. Equals to /memory/classes/metadata/mcache/inuse:bytes.", false, v[rmMCacheInUse]},
		{"mcache_sys_bytes", "Number of bytes used for mcache structures obtained from system. Equals to /memory/classes/metadata/mcache/inuse:bytes + /memory/classes/metadata/mcache/free:bytes.", false, v[rmMCacheInUse] + v[rmMCacheFree]},
		{"buck_hash_sys_bytes", "Number of bytes used by the profiling bucket hash table. Equals to /memory/classes/profiling/buckets:bytes.", false, v[rmProfBuckets]},
		{"gc_sys_bytes", "Number of bytes used for garbage collection system metadata. Equals to /memory/classes/metadata/other:bytes.", false, v[rmMetadataOther]},
		{"other_sys_bytes", "Number of bytes used for other system allocations. Equals to /memory/classes/other:bytes.", false, v[rmOther]},
		{"next_gc_bytes", "Number of heap bytes when next garbage collection will take place. Equals to /gc/heap/goal:bytes.", false, v[rmHeapGoal]},
	} {
		name := memstatsNameRoot + m.name
		if m.counter {
			e.Counter(name, m.help, m.value)
		} else {
			e.Gauge(name, m.help, m.value)
		}
	}
}
