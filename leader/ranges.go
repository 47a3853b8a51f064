// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/kube"
)

// This file is the unit a ring hands out: a Range, one of Count equal
// slices of the 64-bit hash space the API server shards objects over, and
// the text a member's Lease publishes its ranges in.

// Range is the Index-th of Count equal slices of the hash space [0, 2^64):
// the hashes h with floor(h × Count / 2^64) = Index. An object belongs to
// the range holding [kube.ShardHash] of its shard field (see [RangeOf]).
type Range struct {
	Index, Count int
}

// RangeOf returns the range of count that holds hash h. Cost: one 128-bit
// multiplication.
func RangeOf(h uint64, count int) Range {
	hi, _ := bits.Mul64(h, uint64(count))
	return Range{Index: int(hi), Count: count}
}

// Hash returns r's bounds: [ceil(Index × 2^64 / Count), ceil((Index+1) ×
// 2^64 / Count)), the hashes RangeOf puts in r (the last range ends at
// 2^64, written End 0).
func (r Range) Hash() kube.HashRange {
	return kube.HashRange{Start: boundary(r.Index, r.Count), End: boundary(r.Index+1, r.Count)}
}

// boundary returns ceil(i × 2^64 / n), and 0 for i = n (2^64 wraps).
func boundary(i, n int) uint64 {
	if i >= n {
		return 0
	}
	q, _ := bits.Div64(uint64(i), uint64(n)-1, uint64(n)) // (i×2^64 + n-1) / n
	return q
}

// Contains reports whether hash h falls in r.
func (r Range) Contains(h uint64) bool { return RangeOf(h, r.Count).Index == r.Index }

// String returns "Index/Count".
func (r Range) String() string { return fmt.Sprintf("%d/%d", r.Index, r.Count) }

// ShardSelector returns the shard selector of the objects in ranges rs
// (all of one Count), hashing field: one shardRange per run of adjacent
// ranges, in index order. It is empty (selects everything) when rs is.
func ShardSelector(field kube.ShardField, rs ...Range) kube.ShardSelector {
	idx := make([]int, 0, len(rs))
	count := 0
	for _, r := range rs {
		idx = append(idx, r.Index)
		count = r.Count
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	sel := kube.ShardSelector{Field: field}
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		sel.Ranges = append(sel.Ranges, kube.HashRange{Start: boundary(idx[i], count), End: boundary(idx[j]+1, count)})
		i = j + 1
	}
	return sel
}

// formatRanges writes the indexes a member publishes: "Count:" and runs,
// "64:0-3,9,12-15"; "64:" for none.
func formatRanges(count int, idx []int) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(count))
	b.WriteByte(':')
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(idx[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(idx[j]))
		}
		i = j + 1
	}
	return b.String()
}

// parseRanges reads what formatRanges writes: the count and the sorted
// indexes.
func parseRanges(s string) (count int, idx []int, err error) {
	c, list, ok := strings.Cut(s, ":")
	count, cerr := strconv.Atoi(c)
	if !ok || cerr != nil || count < 1 || count > MaxRanges {
		return 0, nil, errs.Errorf("ranges %q: want COUNT:LIST with COUNT in 1..%d", s, MaxRanges)
	}
	if list == "" {
		return count, nil, nil
	}
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRun := strings.Cut(part, "-")
		a, aerr := strconv.Atoi(lo)
		b := a
		var berr error
		if isRun {
			b, berr = strconv.Atoi(hi)
		}
		if aerr != nil || berr != nil || a < 0 || b < a || b >= count || len(idx) > 0 && a <= idx[len(idx)-1] {
			return 0, nil, errs.Errorf("ranges %q: bad or unordered run %q", s, part)
		}
		for i := a; i <= b; i++ {
			idx = append(idx, i)
		}
	}
	return count, idx, nil
}

// MaxRanges bounds RingOptions.Ranges: a member's Lease lists its ranges in
// an annotation, and a selector names each run of them in the URL.
const MaxRanges = 4096

// FormatRanges writes ranges of one ring as a member's Lease publishes
// them, "64:0-3,9" (the count, then runs of indexes); "" for none.
func FormatRanges(rs []Range) string {
	if len(rs) == 0 {
		return ""
	}
	idx := make([]int, len(rs))
	for n, r := range rs {
		idx[n] = r.Index
	}
	slices.Sort(idx)
	return formatRanges(rs[0].Count, slices.Compact(idx))
}
