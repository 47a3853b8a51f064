// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/internal/wait"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestChaos runs three candidates for 15 minutes of fake time (a seed:
// two seeds, in parallel) while links are cut and stalled, the server
// fails requests, other writers touch the Lease, and candidates are
// killed (with and without release); each of those happens in every seed. A candidate
// whose Run returned (killed, or leadership lost) is replaced by a new one,
// as a process supervisor would restart it. The ledger fails the test the instant two terms overlap; a
// sampler also checks IsLeader of every candidate every 100ms. At the end,
// with the faults gone, there must be a leader again.
func TestChaos(t *testing.T) {
	t.Parallel() // bubbles and servers of its own: beside the other ring tests
	seeds, span := uint64(2), 15*time.Minute
	if testing.Short() {
		seeds = 1
	}
	for seed := range seeds {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel() // a bubble and a server of its own
			synctest.Test(t, func(t *testing.T) { chaos(t, seed, span) })
		})
	}
}

func chaos(t *testing.T, seed uint64, span time.Duration) {
	rng := rand.New(rand.NewPCG(seed, 42))
	var ids []string
	for i := range 1000 {
		ids = append(ids, fmt.Sprint("c", i))
	}
	c := newCluster(t, ids...)
	nextID := 0
	spawn := func() *candidate {
		id := ids[nextID]
		nextID++
		release := rng.IntN(2) == 0
		return c.start(id, func(cfg *Options) { cfg.ReleaseOnCancel = release })
	}
	live := []*candidate{spawn(), spawn(), spawn()}

	sampling, stopSampling := context.WithCancel(context.Background())
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for wait.Sleep(sampling, 100*time.Millisecond) {
			var leaders []string
			c.mu.Lock()
			for _, cd := range c.candidates {
				if cd.e.IsLeader() {
					leaders = append(leaders, cd.id)
				}
			}
			c.mu.Unlock()
			if len(leaders) > 1 {
				t.Errorf("at +%v: IsLeader is true for %v", c.since(), leaders)
			}
		}
	}()

	var faults, kills int
	counts := map[string]int{} // of each fault, by name
	for end := time.Now().Add(span); time.Now().Before(end); {
		time.Sleep(time.Duration(500+rng.IntN(4000)) * time.Millisecond)
		for i, cd := range live {
			select {
			case <-cd.done:
				live[i] = spawn()
			default:
			}
		}
		cd := live[rng.IntN(len(live))]
		switch rng.IntN(10) {
		case 0, 1:
			counts["cut"]++
			cd.link.cut()
			go heal(cd, time.Duration(rng.IntN(30))*time.Second)
		case 2:
			counts["stall"]++
			cd.link.stall()
			go heal(cd, time.Duration(rng.IntN(20))*time.Second)
		case 3, 4:
			counts["fail"]++
			c.srv.FailNext(1+rng.IntN(6), nil, kube.NewStatusError(http.StatusInternalServerError, kube.ReasonInternalError, "chaos"))
		case 5:
			counts["conflict"]++
			c.srv.FailNext(1+rng.IntN(3), func(ri kubetest.RequestInfo) bool { return ri.Verb == "update" },
				kube.NewStatusError(http.StatusConflict, kube.ReasonConflict, "chaos"))
		case 6:
			counts["touch"]++
			touch(c, rng.IntN(1000))
		case 7:
			counts["kill"]++
			cd.link.heal()
			cd.halt() // replaced at the next round
			kills++
			continue
		default:
			continue
		}
		faults++
	}

	for _, cd := range live {
		cd.link.heal()
	}
	time.Sleep(ld + poll + time.Minute)
	if _, ok := c.current(); !ok {
		t.Errorf("no leader a minute after the faults stopped; terms %+v", c.history())
	}
	stopSampling()
	<-sampled
	h := c.history()
	for i := 1; i < len(h); i++ {
		if h[i].start.Before(h[i-1].end) {
			t.Errorf("term %d (%s) started at +%v before term %d (%s) ended at +%v",
				i, h[i].id, h[i].start.Sub(c.t0), i-1, h[i-1].id, h[i-1].end.Sub(c.t0))
		}
	}
	for _, what := range []string{"cut", "stall", "fail", "conflict", "touch", "kill"} {
		if counts[what] == 0 {
			t.Errorf("seed %d: no %s in %v: the run does not show what it is for; %v", seed, what, span, counts)
		}
	}
	t.Logf("seed %d: %d faults, %d kills, %d candidates, %d terms in %v; %v", seed, faults, kills, nextID, len(h), span, counts)
}

// heal heals cd's link after d.
func heal(cd *candidate, d time.Duration) {
	time.Sleep(d)
	cd.link.heal()
}

// touch changes a label of the Lease as another writer would, leaving the
// lock record alone.
func touch(c *cluster, n int) {
	client := c.admin()
	var l kube.Lease
	if client.Get(context.Background(), kube.Key{Namespace: "default", Name: testLease}, &l) != nil {
		return
	}
	l.Labels = map[string]string{"touched": fmt.Sprint(n)}
	_ = client.Update(context.Background(), &l)
}
