// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func identities(n int) []string {
	var ms []string
	for i := range n {
		ms = append(ms, fmt.Sprintf("host-%d_%08x", i, uint32(i*2654435761)))
	}
	return ms
}

func TestAssignDeterministicAndBalanced(t *testing.T) {
	for _, count := range []int{1, 7, 64, 256} {
		for n := 1; n <= 12; n++ {
			ms := identities(n)
			want := Assign(ms, count)
			shuffled := slices.Clone(ms)
			rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			if got := Assign(append(shuffled, shuffled[0]), count); !slices.Equal(got, want) {
				t.Fatalf("Assign(%d members, %d) depends on order or duplicates", n, count)
			}
			per := map[string]int{}
			for i, o := range want {
				if !slices.Contains(ms, o) {
					t.Fatalf("Assign(%d members, %d): range %d owned by %q", n, count, i, o)
				}
				per[o]++
			}
			for _, m := range ms {
				if c := per[m]; c < count/n || c > (count+n-1)/n {
					t.Errorf("Assign(%d members, %d): %s owns %d ranges, want %d or %d", n, count, m, c, count/n, (count+n-1)/n)
				}
			}
		}
	}
	if got := Assign(nil, 3); !slices.Equal(got, []string{"", "", ""}) {
		t.Errorf("Assign(nil, 3) = %q, want three empty owners", got)
	}
}

// TestAssignMoves counts the ranges whose owner changes when one member
// joins or leaves: at least the joiner's (leaver's) share must move; the
// test bounds the rest and logs the measure.
func TestAssignMoves(t *testing.T) {
	const count = 64
	var worst float64
	for n := 1; n <= 10; n++ {
		ms := identities(n + 1)
		before, after := Assign(ms[:n], count), Assign(ms, count)
		moved := 0
		for i := range count {
			if before[i] != after[i] {
				moved++
			}
		}
		ideal := float64(count) / float64(n+1)
		ratio := float64(moved) / ideal
		worst = max(worst, ratio)
		t.Logf("%d -> %d members: %d of %d ranges move (ideal %.1f, ratio %.2f)", n, n+1, moved, count, ideal, ratio)
		if ratio > 2 {
			t.Errorf("%d -> %d members: %d ranges move, more than twice the ideal %.1f", n, n+1, moved, ideal)
		}
	}
	t.Logf("worst ratio %.2f", worst)
}

func BenchmarkAssign(b *testing.B) {
	for _, n := range []int{3, 10, 50} {
		ms := identities(n)
		b.Run(fmt.Sprint(n, " members, 64 ranges"), func(b *testing.B) {
			for b.Loop() {
				Assign(ms, 64)
			}
		})
	}
}
