// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

func TestSeenKeepsTheObservationOfAnUnchangedLease(t *testing.T) {
	p := seen(nil, peer{rv: "5"}, t0)
	if !p.at.Equal(t0) {
		t.Errorf("first sight at %v, want %v", p.at, t0)
	}
	if q := seen(p, peer{rv: "5"}, t0.Add(time.Minute)); !q.at.Equal(t0) {
		t.Errorf("unchanged lease observed at %v, want the first sight %v: it ages", q.at, t0)
	}
	if q := seen(p, peer{rv: "6"}, t0.Add(time.Minute)); !q.at.Equal(t0.Add(time.Minute)) {
		t.Errorf("renewed lease observed at %v, want now", q.at)
	}
}

func TestPeerExpiry(t *testing.T) {
	p := &peer{at: t0, duration: 20 * time.Second}
	fallback := 15 * time.Second
	for _, tc := range []struct {
		p       *peer
		now     time.Time
		expired bool
	}{
		{p, t0.Add(19 * time.Second), false},
		{p, t0.Add(20 * time.Second), true}, // its duration, not ours
		{&peer{at: t0}, t0.Add(14 * time.Second), false},
		{&peer{at: t0}, t0.Add(15 * time.Second), true}, // none written: ours
	} {
		if got := tc.p.expired(tc.now, fallback); got != tc.expired {
			t.Errorf("peer written %v, seen at t0: expired at +%v = %v, want %v", tc.p.duration, tc.now.Sub(t0), got, tc.expired)
		}
	}
}

func TestPeerPublishes(t *testing.T) {
	for _, tc := range []struct {
		p    peer
		r    Range
		want bool
	}{
		{peer{count: 64, ranges: []int{1, 5, 9}}, Range{5, 64}, true},
		{peer{count: 64, ranges: []int{1, 5, 9}}, Range{6, 64}, false},
		// Cut differently: 32's range 3 is 64's 6 and 7.
		{peer{count: 32, ranges: []int{3}}, Range{7, 64}, true},
		{peer{count: 32, ranges: []int{3}}, Range{8, 64}, false},
		{peer{count: 3, ranges: []int{2}}, Range{63, 64}, true}, // up to 2^64
		{peer{count: 3, ranges: []int{0}}, Range{21, 64}, true}, // 0/3 ends inside 21/64
		{peer{count: 3, ranges: []int{0}}, Range{22, 64}, false},
	} {
		if got := tc.p.publishes(tc.r); got != tc.want {
			t.Errorf("peer publishing %d:%v publishes %v = %v, want %v", tc.p.count, tc.p.ranges, tc.r, got, tc.want)
		}
	}
}

func TestLiveMembersAndBlocker(t *testing.T) {
	now := t0.Add(10 * time.Second)
	d := 15 * time.Second
	peers := map[string]*peer{
		"live":    {id: "b", at: t0, duration: d, count: 64, ranges: []int{1}},
		"expired": {id: "c", at: t0.Add(-10 * time.Second), duration: d, count: 64, ranges: []int{2}},
		"leaving": {id: "d", at: t0, duration: d, count: 64, ranges: []int{3}, leaving: true},
		"other":   {id: "e", at: t0, duration: d, count: 32, ranges: []int{2}},
		"garbled": {id: "f", at: t0, duration: d, ignored: ignoredUnreadable},
	}
	if got, want := liveMembers("a", false, peers, 64, now, d), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("liveMembers = %v, want %v: expired, leaving and differently cut peers are not assigned ranges", got, want)
	}
	if got := liveMembers("a", true, peers, 64, now, d); !slices.Equal(got, []string{"b"}) {
		t.Errorf("liveMembers of a leaving member = %v, want [b]", got)
	}
	for _, tc := range []struct {
		r    int
		want string
	}{
		{1, "live"},
		{2, ""},        // published by an expired peer only
		{3, "leaving"}, // a leaving peer blocks what it still publishes
		{4, "other"},   // 32's range 2 is 64's 4 and 5
		{6, ""},
	} {
		if got := blocker(peers, Range{tc.r, 64}, now, d); got != tc.want {
			t.Errorf("blocker of %d/64 = %q, want %q", tc.r, got, tc.want)
		}
	}
}

func TestRetarget(t *testing.T) {
	states := []rangeState{rangeHeld, rangeHeld, rangeClaimed, rangeClaimed, rangeFree, rangeFree, rangeDraining, rangeFree}
	mine := []bool{true, false, true, false, true, false, true, true}
	rested := make([]time.Time, len(states))
	rested[7] = t0.Add(time.Second)
	drain := retarget(states, mine, rested, t0)
	want := []rangeState{rangeHeld, rangeDraining, rangeClaimed, rangeFree, rangeClaimed, rangeFree, rangeDraining, rangeFree}
	if !slices.Equal(states, want) || !slices.Equal(drain, []int{1}) {
		t.Errorf("retarget = %v, drain %v; want %v, drain [1]", states, drain, want)
	}
	if got := indexes(publishedSet(states)); !slices.Equal(got, []int{0, 1, 2, 4, 6}) {
		t.Errorf("published %v, want [0 1 2 4 6]", got)
	}
}

func TestPeerOf(t *testing.T) {
	const d = 15 * time.Second
	lease := func(name, holder, ranges string, secs int32) *kube.Lease {
		l := &kube.Lease{ObjectMeta: kube.ObjectMeta{Name: name, Annotations: map[string]string{RangesAnnotation: ranges}}}
		l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds = &holder, &secs
		return l
	}
	b := MemberLeaseName("demo", "b")
	for _, tc := range []struct {
		name     string
		l        *kube.Lease
		duration time.Duration
		ranges   []int
		ignored  ignoreSet
	}{
		{"a member's", lease(b, "b", "64:1-2", 20), 20 * time.Second, []int{1, 2}, 0},
		{"no duration: ours", lease(b, "b", "64:1", 0), d, []int{1}, 0},
		{"68 years: PeerTrust of ours", lease(b, "b", "64:1", math.MaxInt32), PeerTrust * d, []int{1}, ignoredLong},
		{"unreadable: claims nothing", lease(b, "b", "everything", 15), d, nil, ignoredUnreadable},
		{"not named after its holder", lease("demo-stray", "b", "64:0-63", 15), d, nil, ignoredForeign},
		{"no holder", lease(MemberLeaseName("demo", ""), "", "64:0-63", 15), d, nil, ignoredForeign},
	} {
		p := peerOf(tc.l, "demo", d)
		if p.duration != tc.duration || !slices.Equal(p.ranges, tc.ranges) || p.ignored != tc.ignored {
			t.Errorf("%s: peerOf = duration %v, ranges %v, ignored %b; want %v, %v, %b",
				tc.name, p.duration, p.ranges, p.ignored, tc.duration, tc.ranges, tc.ignored)
		}
		if p.void() && slices.ContainsFunc(indexesUpTo(64), func(i int) bool { return p.publishes(Range{i, 64}) }) {
			t.Errorf("%s: void, yet publishes a range", tc.name)
		}
	}
}

func indexesUpTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestJudgeOwn(t *testing.T) {
	prior := &peer{id: "a", writer: "x", renew: t0}
	for _, tc := range []struct {
		name   string
		writer string
		wrote  bool
		prior  *peer
		next   peer
		want   ownVerdict
	}{
		{"its own write", "mine", true, nil, peer{}, ownMine},
		{"its own write whose answer was lost", "mine", false, prior, peer{}, ownMine},
		{"another's before it wrote", "x", false, nil, peer{id: "a", writer: "x", renew: t0}, ownWait},
		{"another's, unchanged or relabelled", "x", false, prior, peer{id: "a", writer: "x", renew: t0}, ownWait},
		{"another's, renewed while it waits", "x", false, prior, peer{id: "a", writer: "x", renew: t0.Add(time.Second)}, ownTaken},
		{"another's after it wrote", "x", true, nil, peer{id: "a", writer: "x"}, ownTaken},
		{"an older version's after it wrote", "", true, nil, peer{id: "a"}, ownTaken},
	} {
		if got := judgeOwn(tc.writer, "mine", tc.wrote, tc.prior, tc.next); got != tc.want {
			t.Errorf("%s: judgeOwn = %d, want %d", tc.name, got, tc.want)
		}
	}
}
