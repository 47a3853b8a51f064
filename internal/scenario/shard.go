// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// The scenarios of sharded list and watch (KEP-5866): a 1.36 or 1.37
// server must run with the ShardedListAndWatch feature gate on (the
// harness turns it on). 1.33 has no such gate and ignores shardSelector:
// the scenarios of the server's filtering skip there, and those of
// sharded informers check that the client filters instead.

var (
	lowHalf  = kube.ShardSelector{Ranges: []kube.HashRange{{End: 1 << 63}}}
	outerTwo = kube.ShardSelector{Ranges: []kube.HashRange{{End: 1 << 62}, {Start: 3 << 62}}}
)

// shardSeed creates n ConfigMaps and returns the names of those sel
// selects, sorted.
func (f *fixture) shardSeed(t *testing.T, n int, sel kube.ShardSelector) []string {
	t.Helper()
	var in []string
	for i := range n {
		cm := f.configMap(fmt.Sprintf("sh-%02d", i), nil, nil)
		f.mustCreate(t, cm)
		if sel.Matches(cm) {
			in = append(in, cm.Name)
		}
	}
	return in
}

// shardList lists f.ns with sel and opts, checks shardInfo, and returns the
// names listed.
func (f *fixture) shardList(t *testing.T, sel kube.ShardSelector, opts kube.ListOptions) ([]string, kube.ListMeta) {
	t.Helper()
	opts.Namespace, opts.ShardSelector = f.ns, sel
	var list kube.List[kube.ConfigMap]
	if err := f.c.List(f.ctx, &list, opts); err != nil {
		t.Fatalf("list with %s: %v", sel, err)
	}
	if list.ShardInfo == nil {
		t.Fatalf("list with %s has no metadata.shardInfo: the server ignores shardSelector (is the ShardedListAndWatch gate on?)", sel)
	}
	if !list.FilteredBy(sel) {
		t.Errorf("shardInfo.selector = %q, want %q", list.ShardInfo.Selector, sel)
	}
	return names(list.Items), list.ListMeta
}

func testShardedList(t *testing.T, f *fixture) {
	f.skipWithoutServerShards(t)
	want := f.shardSeed(t, 30, lowHalf)
	got, _ := f.shardList(t, lowHalf, kube.ListOptions{})
	if !slices.Equal(got, want) {
		t.Errorf("list with %s = %v, want the objects whose uid hashes below 2^63: %v", lowHalf, got, want)
	}

	var outer []string
	var all kube.List[kube.ConfigMap]
	if err := f.c.List(f.ctx, &all, kube.ListOptions{Namespace: f.ns}); err != nil {
		t.Fatal(err)
	}
	for i := range all.Items {
		if outerTwo.Matches(&all.Items[i]) {
			outer = append(outer, all.Items[i].Name)
		}
	}
	if got, _ := f.shardList(t, outerTwo, kube.ListOptions{}); !slices.Equal(got, outer) {
		t.Errorf("list with %s = %v, want %v", outerTwo, got, outer)
	}

	// Pages: the server stops at the limit and says there is more while any
	// object of the namespace follows, selected or not; 1.36's
	// remainingItemCount counts them all (from the page's start, less the
	// page), 1.37 gives none on a sharded page.
	var paged []string
	opts := kube.ListOptions{Limit: 4}
	countsRemaining := f.minor(t) < minorNewest
	for start := 0; ; {
		page, meta := f.shardList(t, lowHalf, opts)
		paged = append(paged, page...)
		if meta.Continue == "" {
			break
		}
		wantRemaining := int64(len(all.Items) - start - 4)
		switch {
		case !countsRemaining && meta.RemainingItemCount != nil:
			t.Errorf("page after %d objects: remainingItemCount %d, want none (1.%d)", start, *meta.RemainingItemCount, f.minor(t))
		case countsRemaining && (meta.RemainingItemCount == nil || *meta.RemainingItemCount != wantRemaining):
			t.Errorf("page after %d objects: remainingItemCount %v, want %d", start, meta.RemainingItemCount, wantRemaining)
		}
		last := page[len(page)-1]
		start = slices.IndexFunc(all.Items, func(cm kube.ConfigMap) bool { return cm.Name == last }) + 1
		opts.Continue = meta.Continue
	}
	if !slices.Equal(paged, want) {
		t.Errorf("paged list with %s = %v, want %v", lowHalf, paged, want)
	}

	// By namespace, every object of f.ns is in the range that holds the
	// namespace's hash, and none in the rest.
	h := kube.ShardHash(f.ns)
	holding := kube.ShardSelector{Field: kube.ShardByNamespace, Ranges: []kube.HashRange{{Start: h, End: h + 1}}}
	rest := kube.ShardSelector{Field: kube.ShardByNamespace, Ranges: []kube.HashRange{{End: h}, {Start: h + 1}}}
	if got, _ := f.shardList(t, holding, kube.ListOptions{}); len(got) != len(all.Items) {
		t.Errorf("list by namespace with %s = %d objects, want all %d", holding, len(got), len(all.Items))
	}
	if got, _ := f.shardList(t, rest, kube.ListOptions{}); len(got) != 0 {
		t.Errorf("list by namespace with %s = %v, want none", rest, got)
	}
}

func testShardedWatch(t *testing.T, f *fixture) {
	f.skipWithoutServerShards(t)
	want := f.shardSeed(t, 20, lowHalf)

	// WatchList: the selected objects, then the bookmark, which carries no
	// shardInfo.
	w, err := f.c.Watch(f.ctx, configMapKind, kube.ListOptions{Namespace: f.ns, ShardSelector: lowHalf,
		SendInitialEvents: true, ResourceVersionMatch: kube.MatchNotOlderThan, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	var initial []string
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("watch list: %v", err)
		}
		if ev.InitialEventsEnd {
			if strings.Contains(string(ev.Object), "shardInfo") {
				t.Errorf("initial-events-end bookmark %s carries shardInfo", ev.Object)
			}
			break
		}
		var cm kube.ConfigMap
		if err := ev.Decode(&cm); err != nil {
			t.Fatal(err)
		}
		if ev.Type == kube.Added {
			initial = append(initial, cm.Name)
		}
	}
	w.Stop()
	slices.Sort(initial)
	if !slices.Equal(initial, want) {
		t.Errorf("WatchList with %s sent %v, want %v", lowHalf, initial, want)
	}

	// A watch from now on sees the changes of selected objects only. The
	// last change is to a selected object, so that every event before it
	// has arrived when it does.
	_, meta := f.shardList(t, lowHalf, kube.ListOptions{})
	w, err = f.c.Watch(f.ctx, configMapKind, kube.ListOptions{Namespace: f.ns, ShardSelector: lowHalf,
		ResourceVersion: meta.ResourceVersion, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var expected []string
	for i := 0; ; i++ {
		cm := f.configMap(fmt.Sprintf("wsh-%02d", i), nil, nil)
		f.mustCreate(t, cm)
		if err := f.c.Patch(f.ctx, cm, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"a":"1"}}`)}); err != nil {
			t.Fatal(err)
		}
		if err := f.c.Delete(f.ctx, cm); err != nil {
			t.Fatal(err)
		}
		if lowHalf.Matches(cm) {
			expected = append(expected, "ADDED "+cm.Name, "MODIFIED "+cm.Name, "DELETED "+cm.Name)
			if i >= 5 {
				break
			}
		}
	}
	var got []string
	for len(got) < len(expected) {
		typ, cm := nextObject(t, w)
		got = append(got, fmt.Sprintf("%s %s", typ, cm.Name))
	}
	if !slices.Equal(got, expected) {
		t.Errorf("watch with %s got\n%v\nwant\n%v", lowHalf, got, expected)
	}
}

// malformedShardSelectors are answered 500 with these messages by
// kube-apiserver 1.36.3 (and by kube/kubetest), for a list as for a watch.
var malformedShardSelectors = []struct{ sel, msg string }{
	{"  ", "empty shard selector is not allowed; omit the parameter for unfiltered lists"},
	{"shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
		`hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)`},
	{"shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')",
		`unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace`},
	{"shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')",
		"shard range start 0x8000000000000000 must be less than end 0x8000000000000000"},
	{"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') && shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
		`unsupported function "_&&_"; only shardRange() and || are allowed`},
	{"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')",
		`all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"`},
	{"shardRange(object.metadata.uid, 0, 8)", "hexStart must be a string literal, got int64"},
	{"shardRange(object.metadata.uid, '0x0000000000000000'", "CEL parse error: Syntax error: missing ')' at '<EOF>'"},
	{"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') | x", "CEL parse error: Syntax error: token recognition error at: '| '"},
	{"shardRange(object.metadata.uid,, '0x8000000000000000')", "CEL parse error: Syntax error: extraneous input ',' expecting " +
		"{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"},
	{"shardRange(as.b, '0x0000000000000000', '0x8000000000000000')", "CEL parse error: reserved identifier: as"},
}

// rawShardSelector sends raw as the shardSelector of every request that
// has one: kube writes only well-formed selectors.
type rawShardSelector struct {
	next http.RoundTripper
	raw  string
}

func (r rawShardSelector) RoundTrip(req *http.Request) (*http.Response, error) {
	if q := req.URL.Query(); q.Has("shardSelector") {
		req = req.Clone(req.Context())
		q.Set("shardSelector", r.raw)
		req.URL.RawQuery = q.Encode()
	}
	return r.next.RoundTrip(req)
}

func testShardedMalformed(t *testing.T, f *fixture) {
	f.skipWithoutServerShards(t)
	for _, tc := range malformedShardSelectors {
		c := f.wrappedClient(t, func(next http.RoundTripper) http.RoundTripper { return rawShardSelector{next, tc.sel} })
		opts := kube.ListOptions{Namespace: f.ns, ShardSelector: lowHalf}
		var list kube.List[kube.ConfigMap]
		listErr := c.List(f.ctx, &list, opts)
		w, watchErr := c.Watch(f.ctx, configMapKind, opts)
		if watchErr == nil {
			w.Stop()
		}
		for what, err := range map[string]error{"list": listErr, "watch": watchErr} {
			var se *kube.StatusError
			if !errors.As(err, &se) || se.Status.Code != 500 || se.Status.Message != "invalid shard selector: "+tc.msg {
				t.Errorf("%s with %q: %v\nwant a 500 Status %q", what, tc.sel, err, "invalid shard selector: "+tc.msg)
			}
		}
	}
}

// testShardedInformer runs an informer limited to a shard: it caches the
// objects of the shard and nothing else, through its first read and the
// changes after it, the server filtering (nothing is dropped on the
// client).
func testShardedInformer(t *testing.T, f *fixture) {
	f.shardSeed(t, 20, lowHalf)
	for _, mode := range []struct {
		name string
		opts cache.InformerOptions
	}{{"watchlist", cache.InformerOptions{WatchList: true}}, {"list", cache.InformerOptions{PageSize: 4}}} {
		t.Run(mode.name, func(t *testing.T) {
			opts := mode.opts
			opts.Namespaces, opts.ShardSelector = []string{f.ns}, lowHalf
			inf, v := f.startViewed(t, f.c, opts)
			f.cachedEqual(t, inf, v, lowHalf)

			for i := range 6 {
				cm := f.configMap(fmt.Sprintf("%s-new-%d", mode.name, i), nil, nil)
				f.mustCreate(t, cm)
				old := f.configMap(fmt.Sprintf("sh-%02d", i), nil, nil)
				if err := f.c.Patch(f.ctx, old, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"` + mode.name + `":"1"}}`)}); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.c.Delete(f.ctx, f.configMap(fmt.Sprintf("%s-new-0", mode.name), nil, nil)); err != nil {
				t.Fatal(err)
			}
			f.cachedEqual(t, inf, v, lowHalf)
			f.checkShardDropped(t, int64(inf.Stats().ShardDropped))
		})
	}
}
