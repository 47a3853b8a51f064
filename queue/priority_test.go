// SPDX-License-Identifier: Apache-2.0

package queue

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"
)

type add struct {
	item string
	prio int
}

func TestPriorityOrder(t *testing.T) {
	tests := []struct {
		name string
		adds []add
		want []string
	}{
		{"higher first", []add{{"low", -1}, {"mid", 0}, {"high", 5}}, []string{"high", "mid", "low"}},
		{"fifo within a priority", []add{{"a", 1}, {"x", 0}, {"b", 1}, {"y", 0}, {"c", 1}}, []string{"a", "b", "c", "x", "y"}},
		{"re-add raises", []add{{"a", 0}, {"b", 0}, {"c", 0}, {"c", 3}}, []string{"c", "a", "b"}},
		{"raise goes to the back of the higher priority", []add{{"h", 3}, {"a", 0}, {"a", 3}, {"i", 3}}, []string{"h", "a", "i"}},
		{"re-add with lower priority keeps the higher", []add{{"a", 3}, {"b", 2}, {"a", 0}}, []string{"a", "b"}},
		{"raised twice", []add{{"a", 0}, {"b", 1}, {"a", 1}, {"c", 2}, {"a", 2}}, []string{"c", "a", "b"}},
		{"many priorities", func() []add {
			var adds []add
			for p := range 20 {
				adds = append(adds, add{strconv.Itoa(p), p})
			}
			return adds
		}(), []string{"19", "18", "17", "16", "15", "14", "13", "12", "11", "10", "9", "8", "7", "6", "5", "4", "3", "2", "1", "0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQueue(t, Options[string]{})
			for _, a := range tt.adds {
				q.AddWithOptions(a.item, AddOptions{Priority: a.prio})
			}
			if got := drain(q); !slices.Equal(got, tt.want) {
				t.Errorf("Get order after AddWithOptions(%v) = %q, want %q", tt.adds, got, tt.want)
			}
		})
	}
}

func TestPriorityOfRequeue(t *testing.T) {
	tests := []struct {
		name     string
		readds   []int // priorities of the adds of "a" while it is processing
		wantList []string
	}{
		{"first re-add sets the priority", []int{-5}, []string{"b", "a"}},
		{"highest re-add wins", []int{-5, 5, 0}, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQueue(t, Options[string]{})
			q.AddWithOptions("a", AddOptions{Priority: 10})
			item, _ := q.Get()
			for _, p := range tt.readds {
				q.AddWithOptions("a", AddOptions{Priority: p})
			}
			q.Add("b")
			q.Done(item)
			if got := drain(q); !slices.Equal(got, tt.wantList) {
				t.Errorf("Get order after re-adds of a with priorities %v = %q, want %q", tt.readds, got, tt.wantList)
			}
		})
	}
}

// TestAgingUnderSteadyHighPriorityStream adds one low-priority item and then,
// every 100ms, one high-priority item, and a worker that takes one item per
// 100ms: without aging the low item would wait forever.
func TestAgingUnderSteadyHighPriorityStream(t *testing.T) {
	for _, wait := range []time.Duration{0, time.Second, 30 * time.Second} {
		t.Run("MaxPriorityWait="+wait.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := newQueue(t, Options[string]{MaxPriorityWait: wait})
				bound := wait
				if bound == 0 {
					bound = DefaultMaxPriorityWait
				}
				start := time.Now()
				q.AddWithOptions("low", AddOptions{Priority: -1})
				q.Add("h0") // the worker is never idle
				for i := 1; ; i++ {
					time.Sleep(100 * time.Millisecond)
					q.Add("h" + strconv.Itoa(i))
					item, _ := q.Get()
					q.Done(item)
					waited := time.Since(start)
					if item == "low" {
						if waited < bound {
							t.Errorf("low-priority item handed out after %v, want >= %v (MaxPriorityWait)", waited, bound)
						}
						if waited > bound+200*time.Millisecond {
							t.Errorf("low-priority item handed out after %v, want <= %v", waited, bound+200*time.Millisecond)
						}
						break
					}
					if waited > 2*bound {
						t.Fatalf("low-priority item still not handed out after %v, want by %v", waited, bound)
					}
				}
				q.ShutDown()
			})
		})
	}
}

// TestOverdueBacklogDoesNotDelayRealChange checks the other half of the
// aging rule: when a large low-priority backlog is overdue, a new
// high-priority item waits for at most one of its items, and the backlog
// takes every other hand-out in age order.
func TestOverdueBacklogDoesNotDelayRealChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{MaxPriorityWait: time.Second})
		const backlog = 1000
		for i := range backlog {
			q.AddWithOptions("list"+strconv.Itoa(i), AddOptions{Priority: -100})
		}
		time.Sleep(2 * time.Second) // the whole backlog is overdue
		for _, c := range []string{"change0", "change1", "change2"} {
			q.Add(c)
		}
		var got []string
		for range 7 {
			item, _ := q.Get()
			q.Done(item)
			got = append(got, item)
		}
		want := []string{"list0", "change0", "list1", "change1", "list2", "change2", "list3"}
		if !slices.Equal(got, want) {
			t.Errorf("Get order with an overdue backlog = %q, want %q", got, want)
		}
	})
}

func TestAgingOldestFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{MaxPriorityWait: time.Second})
		q.AddWithOptions("old-low", AddOptions{Priority: -2})
		time.Sleep(100 * time.Millisecond)
		q.AddWithOptions("mid", AddOptions{Priority: -1})
		time.Sleep(100 * time.Millisecond)
		q.AddWithOptions("raised", AddOptions{Priority: -2})
		q.AddWithOptions("raised", AddOptions{Priority: 1}) // keeps its age
		time.Sleep(2 * time.Second)
		q.AddWithOptions("new-high", AddOptions{Priority: 5})
		q.AddWithOptions("new-high2", AddOptions{Priority: 5})
		// Aged, priority, aged, priority, ...
		want := []string{"old-low", "new-high", "mid", "new-high2", "raised"}
		if got := drain(q); !slices.Equal(got, want) {
			t.Errorf("Get order = %q, want %q", got, want)
		}
	})
}

func TestNotOverdueKeepsPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{MaxPriorityWait: time.Second})
		q.AddWithOptions("low", AddOptions{Priority: -1})
		time.Sleep(999 * time.Millisecond)
		q.Add("high")
		if got := drain(q); !slices.Equal(got, []string{"high", "low"}) {
			t.Errorf("Get order 1ms before the low item is overdue = %q, want %q", got, []string{"high", "low"})
		}
	})
}

// TestStaleEntriesStayBounded runs a queue that never empties (its depth is
// held at 250), with a steady high-priority stream, low-priority items that
// age out and raises, and checks that the stale entries left in the rings
// (beyond the two live entries of each queued item) stay bounded instead of
// growing with the number of items processed.
func TestStaleEntriesStayBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{MaxPriorityWait: time.Second})
		const steps, depth, bound = 10000, 250, 1000
		for j := range depth {
			q.AddWithOptions("init"+strconv.Itoa(j), AddOptions{Priority: -1})
		}
		worst := 0
		for i := range steps {
			time.Sleep(10 * time.Millisecond)
			q.Add("h" + strconv.Itoa(i))
			if i%2 == 0 {
				q.AddWithOptions("l"+strconv.Itoa(i), AddOptions{Priority: -1})
			}
			if i%5 == 0 {
				q.AddWithOptions("l"+strconv.Itoa(i-20), AddOptions{Priority: 0}) // raise, or add again
			}
			for q.Len() > depth {
				item, _ := q.Get()
				q.Done(item)
			}
			n := q.order.age.n
			for _, b := range q.order.buckets {
				n += b.entries.n
			}
			worst = max(worst, n-2*q.depth)
		}
		if worst > bound {
			t.Errorf("stale ring entries after %d steps peaked at %d, want <= %d", steps, worst, bound)
		}
	})
}

// model is the hand-out rule of the package doc written as plainly as
// possible, to check the queue against under random operations.
type model struct {
	maxWait  time.Duration
	queued   map[string]*modelItem
	busy     map[string]bool // being processed
	requeue  map[string]int  // busy and added since: the priority to queue it with
	seq      int
	agedLast bool
	aged     int // Gets that chose by the aging rule
}

type modelItem struct {
	prio    int
	entered time.Time
	ageSeq  int // order of entering the queue (ties in entered)
	prioSeq int // order of taking its current priority
}

func (m *model) add(item string, prio int, now time.Time) {
	m.seq++
	switch {
	case m.queued[item] != nil:
		if it := m.queued[item]; prio > it.prio {
			it.prio, it.prioSeq = prio, m.seq
		}
	case m.busy[item]:
		if p, ok := m.requeue[item]; !ok || prio > p {
			m.requeue[item] = prio
		}
	default:
		m.queued[item] = &modelItem{prio: prio, entered: now, ageSeq: m.seq, prioSeq: m.seq}
	}
}

func (m *model) get(now time.Time) string {
	var oldest, pick string
	for k, it := range m.queued {
		if o := m.queued[oldest]; o == nil || it.ageSeq < o.ageSeq {
			oldest = k
		}
		if p := m.queued[pick]; p == nil || it.prio > p.prio || (it.prio == p.prio && it.prioSeq < p.prioSeq) {
			pick = k
		}
	}
	aged := oldest != pick && !m.agedLast && now.Sub(m.queued[oldest].entered) >= m.maxWait
	got := pick
	if aged {
		got = oldest
	}
	m.agedLast = aged
	if aged {
		m.aged++
	}
	delete(m.queued, got)
	m.busy[got] = true
	return got
}

func (m *model) done(item string, now time.Time) {
	delete(m.busy, item)
	if p, ok := m.requeue[item]; ok {
		delete(m.requeue, item)
		m.seq++
		m.queued[item] = &modelItem{prio: p, entered: now, ageSeq: m.seq, prioSeq: m.seq}
	}
}

func TestAgainstModel(t *testing.T) {
	for seed := range uint64(20) {
		t.Run("seed="+strconv.FormatUint(seed, 10), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 1))
				const wait = time.Second
				q := newQueue(t, Options[string]{MaxPriorityWait: wait})
				m := &model{maxWait: wait, queued: map[string]*modelItem{}, busy: map[string]bool{}, requeue: map[string]int{}}
				var busy []string
				for op := range 5000 {
					now := time.Now()
					switch r := rng.IntN(100); {
					case r < 50:
						item := "i" + strconv.Itoa(rng.IntN(40))
						prio := rng.IntN(4) - 1
						q.AddWithOptions(item, AddOptions{Priority: prio})
						m.add(item, prio, now)
					case r < 75 && len(m.queued) > 0:
						want := m.get(now)
						got, _ := q.Get()
						if got != want {
							t.Fatalf("op %d: Get() = %q, want %q", op, got, want)
						}
						busy = append(busy, got)
					case r < 90 && len(busy) > 0:
						j := rng.IntN(len(busy))
						item := busy[j]
						busy = slices.Delete(busy, j, j+1)
						q.Done(item)
						m.done(item, now)
					default:
						time.Sleep(time.Duration(rng.IntN(600)) * time.Millisecond)
					}
					if got, want := q.Len(), len(m.queued); got != want {
						t.Fatalf("op %d: Len() = %d, want %d", op, got, want)
					}
				}
				if m.aged < 10 {
					t.Errorf("only %d Gets chose by the aging rule, want >= 10 for a useful test", m.aged)
				}
			})
		})
	}
}

// TestManyDistinctPriorities uses a different priority for every item, so
// that empty buckets must be dropped to keep Get cheap. It runs in a bubble,
// where the clock stands still: on a slow machine the real one passed
// DefaultMaxPriorityWait and the aging rule rightly took the oldest item.
func TestManyDistinctPriorities(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[int]{})
		const n = 5000
		rng := rand.New(rand.NewPCG(1, 2))
		for _, p := range rng.Perm(n) {
			q.AddWithOptions(p, AddOptions{Priority: p})
		}
		for want := n - 1; want >= 0; want-- {
			got, _ := q.Get()
			q.Done(got)
			if got != want {
				t.Fatalf("Get() = %d, want %d (highest priority first)", got, want)
			}
			if b := len(q.order.buckets); b > want+maxIdleBuckets {
				t.Fatalf("after Get() = %d: %d priority buckets, want <= %d", got, b, want+maxIdleBuckets)
			}
		}
	})
}
