// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/leader"
)

// This file runs cmd/internal/shardmember processes and keeps the ledger
// of what they print: every reconcile's start and end by object and
// member, and which member holds each range since when. Timestamps are
// the members' wall clocks, comparable on one machine.

// span is one reconcile of an object by a member, in Unix nanoseconds;
// end is 0 while it runs.
type span struct {
	member     string
	start, end int64
}

// memberStats is a member's STATS line (see cmd/internal/shardmember).
type memberStats struct {
	Objects       int    `json:"objects"`
	WireBytes     int64  `json:"wireBytes"`
	ListRequests  uint64 `json:"listRequests"`
	WatchRequests uint64 `json:"watchRequests"`
	Relists       uint64 `json:"relists"`
	Events        uint64 `json:"events"`
	ShardDropped  uint64 `json:"shardDropped"`
	Held          int    `json:"held"`
}

// ledger is what the members of one ring (or one unsharded replica)
// printed.
type ledger struct {
	ranges int
	mu     sync.Mutex
	spans  map[string][]span // by object key
	holder []string          // by range index: the member holding it, "" if none
	since  []int64           // when holder started holding it
}

func newLedger(ranges int) *ledger {
	return &ledger{ranges: ranges, spans: map[string][]span{}, holder: make([]string, ranges), since: make([]int64, ranges)}
}

// record takes one line printed by member.
func (l *ledger) record(member, line string) {
	f := strings.Fields(line)
	if len(f) != 3 {
		return
	}
	t, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch f[0] {
	case "START":
		l.spans[f[1]] = append(l.spans[f[1]], span{member: member, start: t})
	case "END":
		s := l.spans[f[1]]
		for i := len(s) - 1; i >= 0; i-- {
			if s[i].member == member && s[i].end == 0 {
				s[i].end = t
				break
			}
		}
	case "HOLD", "DROP":
		i, err := strconv.Atoi(f[1])
		if err != nil || i < 0 || i >= l.ranges || t < l.since[i] {
			return // lines of several members may be read out of order
		}
		if f[0] == "HOLD" {
			l.holder[i], l.since[i] = member, t
		} else if l.holder[i] == member {
			l.holder[i], l.since[i] = "", t
		}
	}
}

// holders returns the holder of each range now.
func (l *ledger) holders() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.holder)
}

// pending returns the objects of hashes (key to FNV-1a hash of the uid)
// whose range is not held by one of live, or whose holder has not ended
// a reconcile of them that started after it took the range: empty once a
// ring has settled after a change. For an unsharded replica (live of one,
// no ranges), those it has not reconciled.
func (l *ledger) pending(hashes map[string]uint64, live []string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for key, h := range hashes {
		who, since := live[0], int64(0)
		if l.ranges > 0 {
			i := leader.RangeOf(h, l.ranges).Index
			who, since = l.holder[i], l.since[i]
		}
		done := slices.Contains(live, who) && slices.ContainsFunc(l.spans[key], func(s span) bool {
			return s.member == who && s.start >= since && s.end != 0
		})
		if !done {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// overlaps returns the reconciles of one object by two members at once;
// a reconcile of a killed member that did not end ends at its kill time.
func (l *ledger) overlaps(killed map[string]int64) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for key, spans := range l.spans {
		s := slices.Clone(spans)
		for i := range s {
			if s[i].end == 0 {
				if k, ok := killed[s[i].member]; ok {
					s[i].end = k
				} else {
					s[i].end = time.Now().UnixNano()
				}
			}
		}
		slices.SortFunc(s, func(a, b span) int { return cmp.Compare(a.start, b.start) })
		for i := range s {
			for j := i + 1; j < len(s) && s[j].start < s[i].end; j++ {
				if s[j].member != s[i].member {
					out = append(out, fmt.Sprintf("%s: %s [%d, %d] and %s [%d, %d]", key, s[i].member, s[i].start, s[i].end, s[j].member, s[j].start, s[j].end))
				}
			}
		}
	}
	return out
}

// reconciled returns how many objects have at least one reconcile.
func (l *ledger) reconciled() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.spans)
}

// shardProc is a running shardmember.
type shardProc struct {
	id     string
	cmd    *exec.Cmd
	stats  chan memberStats
	ready  chan struct{}
	exited chan error
	// stderr returns what it wrote on standard error (its first MiB).
	stderr func() string
}

// startMember runs bin as member id with args and env, its lines going to
// l, until the test ends; its standard error goes to the test's log if the
// test fails.
func startMember(t *testing.T, bin, id string, env []string, l *ledger, args ...string) *shardProc {
	t.Helper()
	p := &shardProc{id: id, stats: make(chan memberStats, 1), ready: make(chan struct{}), exited: make(chan error, 1)}
	p.cmd = exec.Command(bin, append([]string{"--id", id}, args...)...)
	p.cmd.Env = env
	var stderr strings.Builder
	var errMu sync.Mutex
	p.cmd.Stderr = writerFunc(func(b []byte) (int, error) {
		errMu.Lock()
		defer errMu.Unlock()
		if stderr.Len() < 1<<20 {
			stderr.Write(b)
		}
		return len(b), nil
	})
	p.stderr = func() string {
		errMu.Lock()
		defer errMu.Unlock()
		return stderr.String()
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "READY":
				close(p.ready)
			case strings.HasPrefix(line, "STATS "):
				var s memberStats
				if err := json.Unmarshal([]byte(line[len("STATS "):]), &s); err == nil {
					p.stats <- s
				}
			default:
				l.record(id, line)
			}
		}
	}()
	go func() {
		<-read // Wait closes the pipe: read it all first
		p.exited <- p.cmd.Wait()
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			errMu.Lock()
			t.Logf("%s's standard error:\n%s", id, stderr.String())
			errMu.Unlock()
		}
	})
	return p
}

// writerFunc is an io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// askStats asks the member for its STATS line.
func (p *shardProc) askStats(t *testing.T) memberStats {
	t.Helper()
	select { // SIGUSR1 ends a process that has not installed its handler yet
	case <-p.ready:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not print READY within 30s", p.id)
	}
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-p.stats:
		return s
	case <-time.After(10 * time.Second):
		t.Fatalf("%s printed no STATS within 10s of SIGUSR1", p.id)
		return memberStats{}
	}
}

// stop ends the member with SIGTERM (a graceful leave) and waits for it.
func (p *shardProc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Errorf("%s did not exit within 30s of SIGTERM", p.id)
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}
