// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestRingChaos runs a ring of three to five members for 8 minutes of
// fake time (a seed: two seeds, in parallel) through joins, graceful
// leaves, SIGKILL-like deaths, cut and stalled links, requests the server
// refuses or fails, and other writers touching the members' Leases; each
// of those happens in every seed. The ledger fails the test the instant two
// members hold one range. When the faults stop, every range must be held
// by its owner among the members still running within LeaseDuration plus
// a few RetryPeriods.
func TestRingChaos(t *testing.T) {
	t.Parallel() // bubbles and servers of its own: beside the other ring tests
	seeds, span := uint64(2), 8*time.Minute
	if testing.Short() {
		seeds = 1
	}
	for seed := range seeds {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel() // a bubble and a server of its own
			synctest.Test(t, func(t *testing.T) { ringChaos(t, seed, span) })
		})
	}
}

func ringChaos(t *testing.T, seed uint64, span time.Duration) {
	rng := rand.New(rand.NewPCG(seed, 19))
	pool := ringIDs(200)
	rt := newRingTest(t, 700*time.Millisecond, pool...)
	next := 0
	spawn := func() *ringMember {
		next++
		return rt.start(pool[next-1], nil)
	}
	live := []*ringMember{spawn(), spawn(), spawn()}
	pick := func() (int, *ringMember) { i := rng.IntN(len(live)); return i, live[i] }
	var bg sync.WaitGroup // heals and leaves: the bubble must end with them
	defer bg.Wait()
	heal := func(rm *ringMember, d time.Duration) {
		bg.Go(func() {
			time.Sleep(d)
			rm.link.heal()
			rt.srv.Allow(rm.id, "*", "*")
		})
	}
	counts := map[string]int{}
	for end := time.Now().Add(span); time.Now().Before(end); {
		time.Sleep(time.Duration(500+rng.IntN(6000)) * time.Millisecond)
		i, rm := pick()
		var what string
		switch rng.IntN(10) {
		case 0:
			if len(live) == 5 {
				continue
			}
			what, live = "join", append(live, spawn())
		case 1:
			if len(live) == 3 {
				continue
			}
			what, live = "leave", slices.Delete(live, i, i+1)
			bg.Go(func() { rm.leave() })
		case 2:
			if len(live) == 3 {
				continue
			}
			what, live = "kill", slices.Delete(live, i, i+1)
			rm.kill()
		case 3:
			what = "cut"
			rm.link.cut()
			heal(rm, time.Duration(rng.IntN(25))*time.Second)
		case 4:
			what = "stall"
			rm.link.stall()
			heal(rm, time.Duration(rng.IntN(25))*time.Second)
		case 5:
			what = "deny"
			rt.srv.Deny(rm.id, "*", "*")
			heal(rm, time.Duration(rng.IntN(25))*time.Second)
		case 6:
			what = "fail"
			rt.srv.FailNext(1+rng.IntN(8), nil, kube.NewStatusError(http.StatusInternalServerError, kube.ReasonInternalError, "chaos"))
		case 7:
			what = "conflict"
			rt.srv.FailNext(1+rng.IntN(3), func(ri kubetest.RequestInfo) bool { return ri.Verb == "update" },
				kube.NewStatusError(http.StatusConflict, kube.ReasonConflict, "chaos"))
		case 8:
			what = "touch"
			rt.touch(MemberLeaseName(testRing, rm.id), rng.IntN(1000))
		default:
			continue
		}
		counts[what]++
	}

	for _, rm := range live {
		rm.link.heal()
		rt.srv.Allow(rm.id, "*", "*")
	}
	var ids []string
	for _, rm := range live {
		ids = append(ids, rm.id)
	}
	took := rt.waitSettled(ids, lease+3*retry+time.Minute)
	for _, what := range []string{"join", "leave", "kill", "cut", "stall", "deny", "fail", "conflict", "touch"} {
		if counts[what] == 0 {
			t.Errorf("seed %d: no %s in %v: the run does not show what it is for; %v", seed, what, span, counts)
		}
	}
	t.Logf("seed %d: %v over %v; %d handovers, the longest %v; settled on %d members %v after the faults",
		seed, counts, span, len(rt.gaps), slices.Max(append(rt.takeGaps(), 0)), len(ids), took)
}

// touch changes a label of a member's Lease as another writer would.
func (rt *ringTest) touch(name string, n int) {
	c, err := kube.NewClient(rt.srv.Config(), kube.ClientOptions{})
	if err != nil {
		rt.t.Fatal(err)
	}
	var l kube.Lease
	if c.Get(context.Background(), kube.Key{Namespace: "default", Name: name}, &l) != nil {
		return
	}
	l.Labels[fmt.Sprint("touched-", n)] = "yes"
	_ = c.Update(context.Background(), &l)
}
