// SPDX-License-Identifier: Apache-2.0

package queue

import (
	"strconv"
	"sync"
	"testing"
	"time"
)

// Run with: go test -run x -bench . -benchmem ./queue/
// One op is one item: an Add (or AddAfter) and, where the shape drains, its
// Get and Done.

const benchKeys = 100_000

var benchKeyList = func() []string {
	keys := make([]string, benchKeys)
	for i := range keys {
		keys[i] = "namespace-" + strconv.Itoa(i%97) + "/object-" + strconv.Itoa(i)
	}
	return keys
}()

func benchConfigs() []struct {
	name string
	cfg  Options[string]
} {
	return []struct {
		name string
		cfg  Options[string]
	}{
		{"metrics", Options[string]{}},
		{"nometrics", Options[string]{DisableMetrics: true}},
	}
}

// BenchmarkHotKey adds, gets and finishes one key over and over.
func BenchmarkHotKey(b *testing.B) {
	for _, c := range benchConfigs() {
		b.Run(c.name, func(b *testing.B) {
			q := newQueue(b, c.cfg)
			b.ReportAllocs()
			for b.Loop() {
				q.Add("default/hot")
				item, _ := q.Get()
				q.Done(item)
			}
		})
	}
}

// BenchmarkDistinctKeys adds 100,000 distinct keys, then drains them.
func BenchmarkDistinctKeys(b *testing.B) {
	for _, c := range benchConfigs() {
		b.Run(c.name, func(b *testing.B) {
			q := newQueue(b, c.cfg)
			b.ReportAllocs()
			for done := 0; done < b.N; {
				n := min(benchKeys, b.N-done)
				for _, k := range benchKeyList[:n] {
					q.Add(k)
				}
				for range n {
					item, _ := q.Get()
					q.Done(item)
				}
				done += n
			}
		})
	}
}

// BenchmarkDistinctKeysTwoPriorities is BenchmarkDistinctKeys with every
// other key at a lower priority, as when an initial list meets changes.
func BenchmarkDistinctKeysTwoPriorities(b *testing.B) {
	q := newQueue(b, Options[string]{})
	b.ReportAllocs()
	for done := 0; done < b.N; {
		n := min(benchKeys, b.N-done)
		for i, k := range benchKeyList[:n] {
			q.AddWithOptions(k, AddOptions{Priority: -(i & 1)})
		}
		for range n {
			item, _ := q.Get()
			q.Done(item)
		}
		done += n
	}
}

// BenchmarkProducersConsumers has 8 producers adding keys and 8 consumers
// taking them. One op is one Add.
func BenchmarkProducersConsumers(b *testing.B) {
	const producers, consumers = 8, 8
	q := newQueue(b, Options[string]{})
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for range consumers {
		wg.Go(func() {
			for {
				item, ok := q.Get()
				if !ok {
					return
				}
				q.Done(item)
			}
		})
	}
	var prods sync.WaitGroup
	for p := range producers {
		prods.Go(func() {
			for i := p; i < b.N; i += producers {
				q.Add(benchKeyList[i%benchKeys])
			}
		})
	}
	prods.Wait()
	if err := waitIdle(q); err != nil {
		b.Fatal(err)
	}
	q.ShutDown()
	wg.Wait()
}

// BenchmarkAddAfterFarFuture delays 100,000 distinct keys by an hour, then
// shuts the queue down and starts over with a new one.
func BenchmarkAddAfterFarFuture(b *testing.B) {
	b.ReportAllocs()
	q := newQueue(b, Options[string]{})
	for i := range b.N {
		q.AddAfter(benchKeyList[i%benchKeys], time.Hour)
		if i%benchKeys == benchKeys-1 {
			q.ShutDown()
			q = newQueue(b, Options[string]{})
		}
	}
	q.ShutDown()
}
