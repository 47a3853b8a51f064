// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"bytes"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// scrape writes reg and parses it back, as Prometheus would read it.
func scrape(t *testing.T, reg *Registry) map[string]Family {
	t.Helper()
	var buf bytes.Buffer
	if err := reg.Write(&buf); err != nil {
		t.Fatal(err)
	}
	fams, err := Parse(&buf)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	out := map[string]Family{}
	for _, f := range fams {
		out[f.Name] = f
	}
	return out
}

func TestGoCollector(t *testing.T) {
	runtime.GC() // so that there is a pause to summarize
	fams := scrape(t, NewRegistry(GoCollector()))

	// The default set of client_golang's Go collector, with its types.
	want := map[string]Type{
		"go_goroutines": TypeGauge, "go_threads": TypeGauge, "go_info": TypeGauge,
		"go_gc_duration_seconds": TypeSummary, "go_memstats_last_gc_time_seconds": TypeGauge,
		"go_gc_gogc_percent": TypeGauge, "go_gc_gomemlimit_bytes": TypeGauge, "go_sched_gomaxprocs_threads": TypeGauge,
		"go_memstats_alloc_bytes": TypeGauge, "go_memstats_alloc_bytes_total": TypeCounter, "go_memstats_sys_bytes": TypeGauge,
		"go_memstats_mallocs_total": TypeCounter, "go_memstats_frees_total": TypeCounter,
		"go_memstats_heap_alloc_bytes": TypeGauge, "go_memstats_heap_sys_bytes": TypeGauge, "go_memstats_heap_idle_bytes": TypeGauge,
		"go_memstats_heap_inuse_bytes": TypeGauge, "go_memstats_heap_released_bytes": TypeGauge, "go_memstats_heap_objects": TypeGauge,
		"go_memstats_stack_inuse_bytes": TypeGauge, "go_memstats_stack_sys_bytes": TypeGauge,
		"go_memstats_mspan_inuse_bytes": TypeGauge, "go_memstats_mspan_sys_bytes": TypeGauge,
		"go_memstats_mcache_inuse_bytes": TypeGauge, "go_memstats_mcache_sys_bytes": TypeGauge,
		"go_memstats_buck_hash_sys_bytes": TypeGauge, "go_memstats_gc_sys_bytes": TypeGauge,
		"go_memstats_other_sys_bytes": TypeGauge, "go_memstats_next_gc_bytes": TypeGauge,
	}
	for name, typ := range want {
		f, ok := fams[name]
		switch {
		case !ok:
			t.Errorf("%s missing", name)
		case f.Type != typ:
			t.Errorf("%s is a %s, want a %s", name, f.Type, typ)
		case f.Help == "":
			t.Errorf("%s has no help", name)
		}
	}
	for name := range fams {
		if _, ok := want[name]; !ok {
			t.Errorf("%s emitted, not in the Go client's default set", name)
		}
	}

	value := func(name string) float64 { return fams[name].Series[0].Value }
	if n := value("go_goroutines"); n < 1 {
		t.Errorf("go_goroutines = %v, want > 0", n)
	}
	if n := value("go_threads"); n < 1 {
		t.Errorf("go_threads = %v, want > 0", n)
	}
	if l := fams["go_info"].Series[0].Labels; len(l) != 1 || l[0] != (Label{"version", runtime.Version()}) {
		t.Errorf("go_info labels = %v, want version=%s", l, runtime.Version())
	}
	if n := value("go_sched_gomaxprocs_threads"); n != float64(runtime.GOMAXPROCS(0)) {
		t.Errorf("go_sched_gomaxprocs_threads = %v, want %d", n, runtime.GOMAXPROCS(0))
	}
	if h := fams["go_gc_gogc_percent"].Help; !strings.HasSuffix(h, " Sourced from /gc/gogc:percent.") {
		t.Errorf("go_gc_gogc_percent help = %q, want the runtime's description and its source", h)
	}
	gc := fams["go_gc_duration_seconds"].Series[0].Summary
	var qs []float64
	for _, q := range gc.Quantiles {
		qs = append(qs, q.Q)
	}
	if !slices.Equal(qs, []float64{0, 0.25, 0.5, 0.75, 1}) || gc.Count < 1 || gc.Sum <= 0 {
		t.Errorf("go_gc_duration_seconds = %+v, want quantiles 0..1 by 0.25 and at least one pause", gc)
	}
	if last := value("go_memstats_last_gc_time_seconds"); math.Abs(last-float64(time.Now().Unix())) > 600 {
		t.Errorf("go_memstats_last_gc_time_seconds = %v, want about now", last)
	}
	if a, s := value("go_memstats_heap_alloc_bytes"), value("go_memstats_heap_sys_bytes"); a <= 0 || s < a {
		t.Errorf("heap alloc %v, sys %v: want 0 < alloc <= sys", a, s)
	}
	if value("go_memstats_alloc_bytes") != value("go_memstats_heap_alloc_bytes") {
		t.Errorf("go_memstats_alloc_bytes differs from go_memstats_heap_alloc_bytes")
	}
	if m, f := value("go_memstats_mallocs_total"), value("go_memstats_frees_total"); m < f || m-f < value("go_memstats_heap_objects")/2 {
		t.Errorf("mallocs %v, frees %v, heap objects %v: want mallocs - frees about the live objects", m, f, value("go_memstats_heap_objects"))
	}
}

func TestProcessCollector(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process metrics come from /proc")
	}
	fams := scrape(t, NewRegistry(ProcessCollector()))
	want := map[string]Type{
		"process_cpu_seconds_total": TypeCounter, "process_open_fds": TypeGauge, "process_max_fds": TypeGauge,
		"process_virtual_memory_bytes": TypeGauge, "process_virtual_memory_max_bytes": TypeGauge,
		"process_resident_memory_bytes": TypeGauge, "process_start_time_seconds": TypeGauge,
		"process_network_receive_bytes_total": TypeCounter, "process_network_transmit_bytes_total": TypeCounter,
	}
	if len(fams) != len(want) {
		t.Errorf("%d families, want %d", len(fams), len(want))
	}
	for name, typ := range want {
		if f, ok := fams[name]; !ok || f.Type != typ || f.Help == "" {
			t.Errorf("%s = %+v, want a %s with help", name, f, typ)
		}
	}
	value := func(name string) float64 { return fams[name].Series[0].Value }
	// The test binary started moments ago.
	if start := value("process_start_time_seconds"); math.Abs(start-float64(time.Now().Unix())) > 600 {
		t.Errorf("process_start_time_seconds = %v, want within 10 minutes of now (%d)", start, time.Now().Unix())
	}
	if rss := value("process_resident_memory_bytes"); rss < 1<<20 {
		t.Errorf("process_resident_memory_bytes = %v, want at least 1 MiB", rss)
	}
	if v, rss := value("process_virtual_memory_bytes"), value("process_resident_memory_bytes"); v < rss {
		t.Errorf("virtual memory %v below resident %v", v, rss)
	}
	if open, max := value("process_open_fds"), value("process_max_fds"); open < 3 || max < open {
		t.Errorf("open fds %v, max %v: want 3 <= open <= max", open, max)
	}
	if cpu := value("process_cpu_seconds_total"); cpu < 0 {
		t.Errorf("process_cpu_seconds_total = %v", cpu)
	}
}

func TestCollectorsTogether(t *testing.T) {
	// Both on one registry, as the manager serves them: no name clashes.
	reg := NewRegistry(GoCollector(), ProcessCollector())
	if _, err := reg.Gather(); err != nil {
		t.Fatal(err)
	}
}

func TestParseProcStat(t *testing.T) {
	// A command with spaces and parentheses; fields as proc(5) numbers them.
	line := "1234 (my (weird) cmd) S 1 1234 1234 0 -1 4194560 500 0 0 0 250 50 0 0 20 0 12 0 4200 1000000 300 18446744073709551615"
	st, err := parseProcStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if st.cpuSeconds != 3 || st.startTicks != 4200 || st.vsize != 1e6 || st.rssPages != 300 {
		t.Errorf("parseProcStat = %+v, want cpu 3s, start 4200 ticks, vsize 1e6, rss 300 pages", st)
	}
	if _, err := parseProcStat([]byte("1234 (x) S 1 2")); err == nil {
		t.Errorf("parseProcStat of a short line: no error")
	}
	if b, err := parseBootTime([]byte("cpu  1 2 3\nbtime 1700000000\nprocesses 5\n")); err != nil || b != 1.7e9 {
		t.Errorf("parseBootTime = %v, %v", b, err)
	}
}

func TestParseLimits(t *testing.T) {
	data := "Limit                     Soft Limit           Hard Limit           Units     \n" +
		"Max cpu time              unlimited            unlimited            seconds   \n" +
		"Max open files            1024                 524288               files     \n" +
		"Max address space         unlimited            unlimited            bytes     \n"
	l := parseLimits([]byte(data))
	if l["Max open files"] != 1024 || l["Max address space"] != math.MaxUint64 {
		t.Errorf("parseLimits = %v, want open files 1024 and an unlimited address space as 2^64-1", l)
	}
}

func TestParseNetstat(t *testing.T) {
	data := "TcpExt: SyncookiesSent SyncookiesRecv\nTcpExt: 1 2\nIpExt: InNoRoutes InOctets OutOctets\nIpExt: 0 193237781 38629109\n"
	ip := parseNetstat([]byte(data))["IpExt"]
	if ip["InOctets"] != 193237781 || ip["OutOctets"] != 38629109 {
		t.Errorf("parseNetstat IpExt = %v", ip)
	}
}
