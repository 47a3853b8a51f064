// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// ProcessCollector emits the process_* metrics that the Prometheus Go
// client's process collector serves (client_golang 1.23), with the same
// names, types, help texts and meanings, read from /proc/self as it reads
// them:
//
//   - process_cpu_seconds_total: user and system CPU time
//   - process_open_fds, process_max_fds (the soft limit)
//   - process_virtual_memory_bytes, process_virtual_memory_max_bytes (the
//     soft limit of the address space; unlimited is 2^64-1)
//   - process_resident_memory_bytes
//   - process_start_time_seconds, since the Unix epoch
//   - process_network_receive_bytes_total and
//     process_network_transmit_bytes_total: the IP octets of the process's
//     network namespace
//
// Where /proc is missing (not Linux) or a file cannot be read, the metrics
// that come from it are left out, as the Go client leaves them out when it
// does not report errors. A scrape reads five small files and lists
// /proc/self/fd. It is safe for concurrent scrapes.
func ProcessCollector() Collector { return CollectorFunc(collectProcess) }

// clockTicks is USER_HZ, the unit of the times in /proc/<pid>/stat: 100 on
// every Linux architecture the Go client supports, which assumes it too.
const clockTicks = 100

func collectProcess(e *Emitter) {
	if data, err := os.ReadFile("/proc/self/stat"); err == nil {
		if st, err := parseProcStat(data); err == nil {
			e.Counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", st.cpuSeconds)
			e.Gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", st.vsize)
			e.Gauge("process_resident_memory_bytes", "Resident memory size in bytes.", st.rssPages*float64(os.Getpagesize()))
			if boot, err := readBootTime(); err == nil {
				e.Gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", boot+st.startTicks/clockTicks)
			}
		}
	}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		e.Gauge("process_open_fds", "Number of open file descriptors.", float64(len(fds)))
	}
	if data, err := os.ReadFile("/proc/self/limits"); err == nil {
		limits := parseLimits(data)
		if v, ok := limits["Max open files"]; ok {
			e.Gauge("process_max_fds", "Maximum number of open file descriptors.", v)
		}
		if v, ok := limits["Max address space"]; ok {
			e.Gauge("process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.", v)
		}
	}
	if data, err := os.ReadFile("/proc/self/net/netstat"); err == nil {
		ip := parseNetstat(data)["IpExt"]
		e.Counter("process_network_receive_bytes_total", "Number of bytes received by the process over the network.", ip["InOctets"])
		e.Counter("process_network_transmit_bytes_total", "Number of bytes sent by the process over the network.", ip["OutOctets"])
	}
}

// procStat holds what the collector reads of /proc/<pid>/stat.
type procStat struct {
	cpuSeconds float64 // utime + stime, in seconds
	startTicks float64 // start time after boot, in clock ticks
	vsize      float64 // bytes
	rssPages   float64
}

// parseProcStat reads /proc/<pid>/stat: the pid, the command in
// parentheses (which may hold spaces and parentheses itself, so the
// fields start after the last ')'), then space-separated fields, numbered
// from 1 as proc(5) numbers them: utime 14, stime 15, starttime 22, vsize
// 23, rss 24.
func parseProcStat(data []byte) (procStat, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, errors.New("stat: no command in parentheses")
	}
	fields := strings.Fields(string(data[i+1:])) // fields[0] is field 3, the state
	field := func(n int) (float64, error) {
		if n-3 >= len(fields) {
			return 0, errs.Errorf("stat: %d fields, want at least %d", len(fields)+2, n)
		}
		return strconv.ParseFloat(fields[n-3], 64)
	}
	var st procStat
	var vals [5]float64
	for k, n := range []int{14, 15, 22, 23, 24} {
		v, err := field(n)
		if err != nil {
			return procStat{}, errs.Errorf("stat field %d: %w", n, err)
		}
		vals[k] = v
	}
	st.cpuSeconds = (vals[0] + vals[1]) / clockTicks
	st.startTicks, st.vsize, st.rssPages = vals[2], vals[3], vals[4]
	return st, nil
}

// readBootTime returns the system's boot time in Unix seconds, the btime
// line of /proc/stat.
func readBootTime() (float64, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	return parseBootTime(data)
}

func parseBootTime(data []byte) (float64, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "btime "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, errors.New("stat: no btime line")
}

// parseLimits reads the soft limits of /proc/<pid>/limits, by name
// ("Max open files"); "unlimited" is 2^64-1, as the Go client reports it.
// The columns are aligned: the name ends where the soft limit's column
// starts, which the header line shows.
func parseLimits(data []byte) map[string]float64 {
	out := map[string]float64{}
	lines := strings.Split(string(data), "\n")
	if len(lines) == 0 {
		return out
	}
	col := strings.Index(lines[0], "Soft Limit")
	if col < 0 {
		return out
	}
	for _, line := range lines[1:] {
		if len(line) <= col {
			continue
		}
		name := strings.TrimSpace(line[:col])
		soft := strings.Fields(line[col:])
		if name == "" || len(soft) == 0 {
			continue
		}
		if soft[0] == "unlimited" {
			out[name] = math.MaxUint64
		} else if v, err := strconv.ParseFloat(soft[0], 64); err == nil {
			out[name] = v
		}
	}
	return out
}

// parseNetstat reads /proc/<pid>/net/netstat: pairs of lines, a header
// "Prefix: Name1 Name2 ..." and its values "Prefix: v1 v2 ...". It returns
// the values by prefix and name.
func parseNetstat(data []byte) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i := 0; i+1 < len(lines); i += 2 {
		names, values := strings.Fields(lines[i]), strings.Fields(lines[i+1])
		if len(names) == 0 || len(names) != len(values) || names[0] != values[0] {
			continue
		}
		prefix := strings.TrimSuffix(names[0], ":")
		m := map[string]float64{}
		for k := 1; k < len(names); k++ {
			if v, err := strconv.ParseFloat(values[k], 64); err == nil {
				m[names[k]] = v
			}
		}
		out[prefix] = m
	}
	return out
}
