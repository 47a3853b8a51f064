// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"strings"
	"testing"
	"time"
)

var (
	t0   = time.Date(2026, 11, 21, 4, 50, 0, 0, time.UTC)
	fall = 15 * time.Second // the deciding candidate's own LeaseDuration
)

func held(holder string, secs int, renew time.Time) record {
	return record{holder: holder, duration: time.Duration(secs) * time.Second, acquire: renew, renew: renew, transitions: 3}
}

func TestDecide(t *testing.T) {
	const me = "me"
	skewFuture := t0.Add(24 * time.Hour)
	skewPast := t0.Add(-24 * time.Hour)
	tests := []struct {
		name string
		obs  observation
		now  time.Time
		want decision
	}{
		{"no lease, never seen", observation{}, t0, decision{action: create}},
		{"released lease", observation{present: true, rec: record{duration: time.Second, transitions: 4}, at: t0}, t0, decision{action: acquire}},
		{"released lease with a long duration", observation{present: true, rec: record{duration: time.Hour}, at: t0}, t0, decision{action: acquire}},
		{"held by self", observation{present: true, rec: held(me, 15, t0), at: t0}, t0, decision{action: renew, holder: me}},
		{"held by self long expired", observation{present: true, rec: held(me, 15, t0), at: t0}, t0.Add(time.Hour), decision{action: renew, holder: me}},
		{"held by other, fresh", observation{present: true, rec: held("a", 15, t0), at: t0}, t0.Add(14 * time.Second),
			decision{action: follow, holder: "a", until: t0.Add(15 * time.Second)}},
		{"held by other, expires exactly now", observation{present: true, rec: held("a", 15, t0), at: t0}, t0.Add(15 * time.Second),
			decision{action: acquire, holder: "a"}},
		{"held by other, expired by local observation", observation{present: true, rec: held("a", 15, t0), at: t0}, t0.Add(16 * time.Second),
			decision{action: acquire, holder: "a"}},
		// The holder's clock is a day ahead: its renewTime says the lease is
		// good for a day. Only the local observation counts.
		{"skewed holder ahead, expired locally", observation{present: true, rec: held("a", 15, skewFuture), at: t0}, t0.Add(15 * time.Second),
			decision{action: acquire, holder: "a"}},
		// The holder's clock is a day behind: its renewTime says the lease
		// expired long ago. Only the local observation counts.
		{"skewed holder behind, fresh locally", observation{present: true, rec: held("a", 15, skewPast), at: t0}, t0.Add(time.Second),
			decision{action: follow, holder: "a", until: t0.Add(15 * time.Second)}},
		{"renew time in the future does not matter when fresh", observation{present: true, rec: held("a", 15, skewFuture), at: t0}, t0,
			decision{action: follow, holder: "a", until: t0.Add(15 * time.Second)}},
		// The holder wrote 60s; this candidate is configured with 15s
		// (fall). The record's duration wins.
		{"record duration longer than own", observation{present: true, rec: held("a", 60, t0), at: t0}, t0.Add(30 * time.Second),
			decision{action: follow, holder: "a", until: t0.Add(60 * time.Second)}},
		{"record duration shorter than own", observation{present: true, rec: held("a", 5, t0), at: t0}, t0.Add(6 * time.Second),
			decision{action: acquire, holder: "a"}},
		{"record without a duration falls back to own", observation{present: true, rec: held("a", 0, t0), at: t0}, t0.Add(10 * time.Second),
			decision{action: follow, holder: "a", until: t0.Add(fall)}},
		{"deleted under a live holder", observation{rec: held("a", 15, t0), at: t0}, t0.Add(5 * time.Second),
			decision{action: follow, holder: "a", until: t0.Add(15 * time.Second)}},
		{"deleted after the holder expired", observation{rec: held("a", 15, t0), at: t0}, t0.Add(15 * time.Second),
			decision{action: create, holder: "a"}},
		{"deleted under self", observation{rec: held(me, 15, t0), at: t0}, t0.Add(time.Second), decision{action: create, holder: me}},
		{"deleted after release", observation{rec: record{duration: time.Second}, at: t0}, t0, decision{action: create}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decide(tt.obs, tt.now, me, fall)
			if got != tt.want {
				t.Errorf("decide(%+v, now+%v, %q) = %v, want %v", tt.obs, tt.now.Sub(t0), me, got, tt.want)
			}
		})
	}
}

// TestDecideConfiguredDurationIrrelevant checks that two candidates with
// different LeaseDurations reach the same decision on the same observation.
func TestDecideConfiguredDurationIrrelevant(t *testing.T) {
	obs := observation{present: true, rec: held("a", 20, t0), at: t0}
	for _, now := range []time.Time{t0, t0.Add(10 * time.Second), t0.Add(19 * time.Second), t0.Add(20 * time.Second), t0.Add(time.Minute)} {
		short := decide(obs, now, "b", 5*time.Second) // within PeerTrust of the holder's 20s
		long := decide(obs, now, "c", time.Hour)
		if short != long {
			t.Errorf("at +%v: decide with own 1s = %v, with own 1h = %v, want equal", now.Sub(t0), short, long)
		}
	}
}

// TestDecideBoundsTrust: a Lease written with an absurd duration by a
// holder that never renews is followed for PeerTrust times the candidate's
// own LeaseDuration, not for the 68 years it claims.
func TestDecideBoundsTrust(t *testing.T) {
	obs := observation{present: true, rec: held("stray", 2147483647, t0), at: t0}
	own := 15 * time.Second
	bound := t0.Add(PeerTrust * own)
	if got := decide(obs, bound.Add(-time.Second), "me", own); got != (decision{action: follow, holder: "stray", until: bound}) {
		t.Errorf("before the bound: %v, want follow until %v", got, bound)
	}
	if got := decide(obs, bound, "me", own); got != (decision{action: acquire, holder: "stray"}) {
		t.Errorf("at the bound: %v, want acquire", got)
	}
}

func TestObserve(t *testing.T) {
	a := held("a", 15, t0)
	renewed := a
	renewed.renew = t0.Add(2 * time.Second)
	tests := []struct {
		name    string
		before  observation
		present bool
		rec     record
		now     time.Time
		want    observation
	}{
		{"first sight", observation{}, true, a, t0, observation{present: true, rec: a, at: t0}},
		{"unchanged keeps the time", observation{present: true, rec: a, at: t0}, true, a, t0.Add(9 * time.Second),
			observation{present: true, rec: a, at: t0}},
		{"renewed moves the time", observation{present: true, rec: a, at: t0}, true, renewed, t0.Add(9 * time.Second),
			observation{present: true, rec: renewed, at: t0.Add(9 * time.Second)}},
		{"same times in another zone are unchanged", observation{present: true, rec: a, at: t0}, true,
			record{holder: "a", duration: 15 * time.Second, acquire: t0.In(time.FixedZone("x", 3600)), renew: t0.In(time.FixedZone("x", 3600)), transitions: 3},
			t0.Add(9 * time.Second), observation{present: true, rec: a, at: t0}},
		{"gone keeps the last record and counts as a change", observation{present: true, rec: a, at: t0}, false, record{}, t0.Add(3 * time.Second),
			observation{rec: a, at: t0.Add(3 * time.Second)}},
		{"still gone is no change", observation{rec: a, at: t0.Add(3 * time.Second)}, false, record{}, t0.Add(9 * time.Second),
			observation{rec: a, at: t0.Add(3 * time.Second)}},
		{"never seen", observation{}, false, record{}, t0, observation{}},
		{"back after gone is a change", observation{rec: a, at: t0}, true, a, t0.Add(3 * time.Second),
			observation{present: true, rec: a, at: t0.Add(3 * time.Second)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.before.observe(tt.present, tt.rec, tt.now)
			if got.present != tt.want.present || !got.rec.equal(tt.want.rec) || !got.at.Equal(tt.want.at) {
				t.Errorf("observe(%v, %+v) = %+v, want %+v", tt.present, tt.rec, got, tt.want)
			}
		})
	}
}

func TestNext(t *testing.T) {
	now := t0.Add(time.Minute)
	tests := []struct {
		name    string
		prev    record
		created bool
		want    record
	}{
		{"create", record{}, true, record{holder: "me", duration: 15 * time.Second, acquire: now, renew: now}},
		{"take from other", held("a", 60, t0), false, record{holder: "me", duration: 15 * time.Second, acquire: now, renew: now, transitions: 4}},
		{"take released", released(held("a", 60, t0), t0), false, record{holder: "me", duration: 15 * time.Second, acquire: now, renew: now, transitions: 4}},
		{"renew keeps acquire time and transitions", held("me", 15, t0), false, record{holder: "me", duration: 15 * time.Second, acquire: t0, renew: now, transitions: 3}},
		{"renew fills a missing acquire time", record{holder: "me"}, false, record{holder: "me", duration: 15 * time.Second, acquire: now, renew: now}},
		{"recreate after delete", held("me", 15, t0), true, record{holder: "me", duration: 15 * time.Second, acquire: now, renew: now}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := next(tt.prev, tt.created, "me", 15*time.Second, now); !got.equal(tt.want) {
				t.Errorf("next(%+v, %v) = %+v, want %+v", tt.prev, tt.created, got, tt.want)
			}
		})
	}
}

func TestReleased(t *testing.T) {
	got := released(held("me", 15, t0), t0.Add(time.Second))
	want := record{duration: time.Second, acquire: t0.Add(time.Second), renew: t0.Add(time.Second), transitions: 3}
	if !got.equal(want) {
		t.Errorf("released = %+v, want %+v", got, want)
	}
}

func TestHealth(t *testing.T) {
	tests := []struct {
		name    string
		leading bool
		since   time.Duration
		wantErr string
	}{
		{"follower is healthy", false, time.Hour, ""},
		{"fresh leader", true, 2 * time.Second, ""},
		{"at the limit", true, 35 * time.Second, ""},
		{"past the limit", true, 36 * time.Second, "not renewed the lease for 36s, more than LeaseDuration 15s plus tolerance 20s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := health(tt.leading, t0, t0.Add(tt.since), 15*time.Second, 20*time.Second)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("health(%v, %v ago) = %v, want %q", tt.leading, tt.since, err, tt.wantErr)
			}
		})
	}
}
