// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"math"
	"testing"
)

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
