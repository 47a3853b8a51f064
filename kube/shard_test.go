// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

func TestShardHash(t *testing.T) {
	// FNV-1a 64 test vectors, and a uid the issue checked against the server.
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{"", 0xcbf29ce484222325},
		{"a", 0xaf63dc4c8601ec8c},
		{"foobar", 0x85944171f73967e8},
	} {
		if got := kube.ShardHash(tc.in); got != tc.want {
			t.Errorf("ShardHash(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

func TestShardSelectorString(t *testing.T) {
	for _, tc := range []struct {
		sel  kube.ShardSelector
		want string
	}{
		{kube.ShardSelector{}, ""},
		{kube.ShardSelector{Ranges: []kube.HashRange{{}}},
			"shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')"},
		{kube.ShardSelector{Field: kube.ShardByNamespace, Ranges: []kube.HashRange{{Start: 0xaa, End: 0xff}, {Start: 1 << 63}}},
			"shardRange(object.metadata.namespace, '0x00000000000000aa', '0x00000000000000ff') || " +
				"shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')"},
	} {
		if got := tc.sel.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestShardSelectorMatches(t *testing.T) {
	obj := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "", UID: "a"}} // hashes 0xaf63…, "" 0xcbf2…
	for _, tc := range []struct {
		sel  kube.ShardSelector
		want bool
	}{
		{kube.ShardSelector{}, true},
		{kube.ShardSelector{Ranges: []kube.HashRange{{Start: 0xaf63dc4c8601ec8c, End: 0xaf63dc4c8601ec8d}}}, true},
		{kube.ShardSelector{Ranges: []kube.HashRange{{Start: 0xaf63dc4c8601ec8d}}}, false},
		{kube.ShardSelector{Ranges: []kube.HashRange{{End: 0xaf63dc4c8601ec8c}}}, false}, // End is exclusive
		{kube.ShardSelector{Ranges: []kube.HashRange{{End: 1}, {Start: 0xa000000000000000, End: 0xb000000000000000}}}, true},
		{kube.ShardSelector{Field: kube.ShardByNamespace, Ranges: []kube.HashRange{{Start: 0xcbf29ce484222325}}}, true},
		{kube.ShardSelector{Field: kube.ShardByNamespace, Ranges: []kube.HashRange{{End: 0xcbf29ce484222325}}}, false},
	} {
		if got := tc.sel.Matches(obj); got != tc.want {
			t.Errorf("%s.Matches(uid a) = %v, want %v", tc.sel, got, tc.want)
		}
	}
}

func TestShardSelectorValidate(t *testing.T) {
	for _, tc := range []struct {
		sel  kube.ShardSelector
		want string
	}{
		{kube.ShardSelector{}, ""},
		{kube.ShardSelector{Field: kube.ShardByNamespace, Ranges: []kube.HashRange{{Start: 5}, {End: 5}}}, ""},
		{kube.ShardSelector{Field: "object.metadata.name"}, `shard selector field "object.metadata.name" is not object.metadata.uid or object.metadata.namespace`},
		{kube.ShardSelector{Ranges: []kube.HashRange{{End: 1 << 62}, {Start: 1 << 62, End: 1 << 62}}}, "shard selector range [0x4000000000000000, 0x4000000000000000) is empty"},
	} {
		err := tc.sel.Validate()
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("%+v.Validate() = %v, want %q", tc.sel, err, tc.want)
		}
	}
}

func TestShardSelectorIsAListOption(t *testing.T) {
	sel := kube.ShardSelector{Ranges: []kube.HashRange{{End: 1 << 62}}}
	o := kube.NewListOptions(kube.InNamespace("ns"), sel, kube.ListOptions{Limit: 3})
	if o.ShardSelector.String() != sel.String() || o.Namespace != "ns" || o.Limit != 3 {
		t.Errorf("NewListOptions = %+v, want the selector, namespace ns and limit 3", o)
	}
}

// TestShardedListFallback lists and watches with a shard selector on a
// server that filters and on one that ignores the selector (gate off): the
// client tells them apart by FilteredBy and, filtering by Matches where the
// server did not, ends with the same objects.
func TestShardedListFallback(t *testing.T) {
	sel := kube.ShardSelector{Ranges: []kube.HashRange{{End: 1 << 62}, {Start: 3 << 62}}}
	for _, off := range []bool{false, true} {
		t.Run(fmt.Sprint("gate off ", off), func(t *testing.T) {
			srv := kubetest.New(kubetest.Options{DisableShardedListAndWatch: off})
			t.Cleanup(srv.Close)
			c, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var want []string
			for i := range 40 {
				cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: fmt.Sprint("cm", i)}}
				if err := c.Create(ctx, cm); err != nil {
					t.Fatal(err)
				}
				if sel.Matches(cm) {
					want = append(want, cm.Name)
				}
			}
			slices.Sort(want)

			var list kube.List[kube.ConfigMap]
			if err := c.List(ctx, &list, kube.ListOptions{Namespace: "default", ShardSelector: sel}); err != nil {
				t.Fatal(err)
			}
			if got := list.FilteredBy(sel); got == off {
				t.Errorf("FilteredBy = %v with the gate off %v", got, off)
			}
			var got []string
			for i := range list.Items {
				if list.FilteredBy(sel) || sel.Matches(&list.Items[i]) {
					got = append(got, list.Items[i].Name)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("listed %v, want %v", got, want)
			}

			w, err := c.Watch(ctx, kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, kube.ListOptions{
				Namespace: "default", ShardSelector: sel, SendInitialEvents: true,
				ResourceVersionMatch: kube.MatchNotOlderThan, AllowWatchBookmarks: true})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			var sent int
			for {
				ev, err := w.Next()
				if err != nil {
					t.Fatal(err)
				}
				if ev.InitialEventsEnd {
					break
				}
				sent++
			}
			if wantSent := map[bool]int{false: len(want), true: 40}[off]; sent != wantSent {
				t.Errorf("WatchList sent %d initial events, want %d", sent, wantSent)
			}
		})
	}
}

// TestShardHashLastByte checks what ShardField's doc says of the hash:
// strings that differ only in their last byte hash within 2^48 of each
// other (on the circle of 2^64), into one range of 64 but rarely; and
// that strings differing earlier spread.
func TestShardHashLastByte(t *testing.T) {
	for _, prefix := range []string{"team-", "ns", "tenant-0"} {
		var hs []uint64
		for b := range 256 {
			hs = append(hs, kube.ShardHash(prefix+string([]byte{byte(b)})))
		}
		for _, a := range hs {
			for _, b := range hs {
				if d := min(a-b, b-a); d >= 1<<48 {
					t.Errorf("%q + one byte: hashes %#x and %#x are %#x apart, want < 2^48", prefix, a, b, d)
				}
			}
		}
	}
	ranges := map[uint64]bool{}
	for _, ns := range []string{"a-team", "b-team", "c-team", "d-team", "e-team", "f-team", "g-team", "h-team"} {
		ranges[kube.ShardHash(ns)>>58] = true
	}
	if len(ranges) < 4 {
		t.Errorf("8 names differing in their first byte fall in %d ranges of 64, want them spread", len(ranges))
	}
}
