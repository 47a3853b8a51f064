// SPDX-License-Identifier: Apache-2.0

package strategicmerge

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The scans the index replaces, as the merge did them (and the real
// server does): the reference the index must agree with.

func scanByKey(l []any, mergeKey string, key any) (int, *Error) {
	for i, v := range l {
		m, ok := v.(obj)
		if !ok {
			return 0, smpFailed("value for key %d is not a map", i)
		}
		if k, ok := m[mergeKey]; ok && same(k, key) {
			return i, nil
		}
	}
	return -1, nil
}

func scanPosition(l []any, v any, mergeKey string, maps bool) int {
	want := positionKey(v, mergeKey, maps)
	for i, x := range l {
		if same(positionKey(x, mergeKey, maps), want) {
			return i
		}
	}
	return -1
}

// outcome runs a lookup and says what it answered, errored or panicked.
func outcome(f func() (int, *Error)) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic %v", r)
		}
	}()
	i, err := f()
	if err != nil {
		return "error " + err.Msg
	}
	return fmt.Sprint(i)
}

// randomKey is a merge key value: mostly strings, some of every other
// kind a decoded object holds.
func randomKey(r *rand.Rand) any {
	switch r.IntN(10) {
	case 0:
		return int64(r.IntN(2))
	case 1:
		return float64(r.IntN(2))
	case 2:
		return nil
	case 3:
		return obj{}
	case 4:
		return []any{}
	}
	return string(rune('a' + r.IntN(4)))
}

func randomItems(r *rand.Rand, n int) []any {
	l := make([]any, n)
	for i := range l {
		switch r.IntN(12) {
		case 0:
			l[i] = randomKey(r) // not an object
		case 1:
			l[i] = obj{"image": "x"} // no merge key
		default:
			l[i] = obj{"name": randomKey(r)}
		}
	}
	return l
}

// TestKeyIndexAgreesWithScan looks keys up in random lists by merge key
// and by position, through the index and by scanning: the answers, the
// errors and the panics must be the same.
func TestKeyIndexAgreesWithScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for range 20000 {
		l := randomItems(r, r.IntN(8))
		key := randomKey(r)
		got := outcome(func() (int, *Error) { return mergeKeyIndex(l, "name").find(key) })
		if want := outcome(func() (int, *Error) { return scanByKey(l, "name", key) }); got != want {
			t.Fatalf("find(%v) by merge key in %v = %s, scan = %s", key, l, got, want)
		}
		for _, maps := range []bool{true, false} {
			v := any(obj{"name": key})
			if !maps {
				v = key
			}
			got := outcome(func() (int, *Error) { return positionIndex(l, "name", maps).position(v, "name", maps), nil })
			want := outcome(func() (int, *Error) { return scanPosition(l, v, "name", maps), nil })
			if got != want {
				t.Fatalf("position(%v, maps %v) in %v = %s, scan = %s", v, maps, l, got, want)
			}
		}
	}
}

// TestRemoveInPlaceAgreesWithAppend removes random items of random lists
// in random orders: the list's whole array must be left as removing them
// one by one with append leaves it, freed slots included, since the order
// of a merged list is computed from it.
func TestRemoveInPlaceAgreesWithAppend(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for range 20000 {
		n := r.IntN(10)
		l := make([]any, n, n+r.IntN(3))
		for i := range l {
			l[i] = fmt.Sprint("item", i)
		}
		gone := r.Perm(n)[:r.IntN(n+1)]
		want := slices.Clone(l)
		cur := want
		for _, i := range gone {
			at := slices.Index(cur, any(fmt.Sprint("item", i)))
			cur = append(cur[:at], cur[at+1:]...)
		}
		got := removeInPlace(l, gone)
		if len(got) != len(cur) || !slices.Equal(l, want) {
			t.Fatalf("removeInPlace(items, %v) leaves %v (length %d), append leaves %v (length %d)", gone, l, len(got), want, len(cur))
		}
	}
}
