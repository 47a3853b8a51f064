// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// TestRangeBounds checks that Hash, RangeOf and Contains agree, at the
// bounds and at random hashes, for counts that do and do not divide 2^64.
func TestRangeBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, count := range []int{1, 2, 3, 7, 64, 100, MaxRanges} {
		var prevEnd uint64
		for i := range count {
			r := Range{Index: i, Count: count}
			h := r.Hash()
			if h.Start != prevEnd {
				t.Fatalf("%v starts at %#x, want the previous end %#x", r, h.Start, prevEnd)
			}
			prevEnd = h.End
			for _, x := range []uint64{h.Start, h.End - 1} {
				if got := RangeOf(x, count); got != r || !r.Contains(x) || !h.Contains(x) {
					t.Errorf("RangeOf(%#x, %d) = %v, want %v", x, count, got, r)
				}
			}
		}
		if prevEnd != 0 {
			t.Errorf("the last of %d ranges ends at %#x, want 2^64 (0)", count, prevEnd)
		}
		for range 1000 {
			x := rng.Uint64()
			r := RangeOf(x, count)
			if !r.Hash().Contains(x) {
				t.Errorf("RangeOf(%#x, %d) = %v, whose bounds %v do not hold it", x, count, r, r.Hash())
			}
		}
	}
}

func TestShardSelector(t *testing.T) {
	rs := []Range{{9, 64}, {0, 64}, {1, 64}, {63, 64}, {2, 64}, {1, 64}}
	got := ShardSelector(kube.ShardByUID, rs...).String()
	want := "shardRange(object.metadata.uid, '0x0000000000000000', '0x0c00000000000000') || " +
		"shardRange(object.metadata.uid, '0x2400000000000000', '0x2800000000000000') || " +
		"shardRange(object.metadata.uid, '0xfc00000000000000', '0x10000000000000000')"
	if got != want {
		t.Errorf("ShardSelector = %s\nwant %s", got, want)
	}
	if !ShardSelector(kube.ShardByUID).Empty() {
		t.Error("ShardSelector of no range is not empty")
	}
}

func TestFormatParseRanges(t *testing.T) {
	for _, tc := range []struct {
		count int
		idx   []int
		text  string
	}{
		{64, nil, "64:"},
		{64, []int{0, 1, 2, 3, 9, 12, 13, 63}, "64:0-3,9,12-13,63"},
		{3, []int{1}, "3:1"},
	} {
		if got := formatRanges(tc.count, tc.idx); got != tc.text {
			t.Errorf("formatRanges(%d, %v) = %q, want %q", tc.count, tc.idx, got, tc.text)
		}
		count, idx, err := parseRanges(tc.text)
		if err != nil || count != tc.count || !slices.Equal(idx, tc.idx) {
			t.Errorf("parseRanges(%q) = %d, %v, %v; want %d, %v", tc.text, count, idx, err, tc.count, tc.idx)
		}
	}
	for _, bad := range []string{"", "64", "0:", "5000:", "x:1", "64:64", "64:3-1", "64:3,2", "64:1,1", "64:a", "64:-1"} {
		if _, _, err := parseRanges(bad); err == nil {
			t.Errorf("parseRanges(%q) = nil error, want one", bad)
		}
	}
}

func TestFormatRanges(t *testing.T) {
	r := func(i int) Range { return Range{Index: i, Count: 64} }
	for _, c := range []struct {
		in   []Range
		want string
	}{{nil, ""}, {[]Range{r(9), r(0), r(1), r(2), r(3), r(9)}, "64:0-3,9"}, {[]Range{r(5)}, "64:5"}} {
		if got := FormatRanges(c.in); got != c.want {
			t.Errorf("FormatRanges(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
