// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

func cm(ns, name, rv string, labels map[string]string) *kube.ConfigMap {
	return &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv, Labels: labels}}
}

// byApp files objects under their "app" label.
func byApp(obj kube.Object) []string {
	if v, ok := obj.GetObjectMeta().Labels["app"]; ok {
		return []string{v}
	}
	return nil
}

func indexed(t *testing.T, s *store, name, value string) []string {
	t.Helper()
	var out []string
	if err := s.byIndex(name, value, func(v any) bool {
		out = append(out, s.codec.load(v).GetObjectMeta().Key().String())
		return true
	}); err != nil {
		t.Fatalf("byIndex(%q, %q): %v", name, value, err)
	}
	slices.Sort(out)
	return out
}

func listed(s *store, ns string, all bool) []string {
	var out []string
	s.each(ns, all, func(v any) bool {
		o := s.codec.load(v)
		out = append(out, o.GetObjectMeta().Key().String()+"@"+o.GetObjectMeta().ResourceVersion)
		return true
	})
	slices.Sort(out)
	return out
}

// codecs runs test for a store of decoded objects and for a compact one.
func codecs(t *testing.T, test func(t *testing.T, c *codec)) {
	t.Run("decoded", func(t *testing.T) { test(t, nil) })
	t.Run("compact", func(t *testing.T) {
		test(t, newCodec(kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, func() kube.Object { return new(kube.ConfigMap) }))
	})
}

func TestStorePutRemoveIndex(t *testing.T) { codecs(t, testStorePutRemoveIndex) }

func testStorePutRemoveIndex(t *testing.T, c *codec) {
	s := newStore(c)
	if err := s.addIndex("app", byApp); err != nil {
		t.Fatal(err)
	}
	if err := s.addIndex("app", byApp); err == nil {
		t.Errorf("addIndex twice = nil, want an error")
	}
	s.put(cm("a", "1", "1", map[string]string{"app": "x"}), 10)
	s.put(cm("a", "2", "2", map[string]string{"app": "y"}), 20)
	s.put(cm("b", "1", "3", map[string]string{"app": "x"}), 30)

	if got, want := indexed(t, s, "app", "x"), []string{"a/1", "b/1"}; !slices.Equal(got, want) {
		t.Errorf("byIndex(app, x) = %v, want %v", got, want)
	}
	// Moving a/1 from x to y refiles it.
	s.put(cm("a", "1", "4", map[string]string{"app": "y"}), 5)
	if got, want := indexed(t, s, "app", "x"), []string{"b/1"}; !slices.Equal(got, want) {
		t.Errorf("after update byIndex(app, x) = %v, want %v", got, want)
	}
	if got, want := indexed(t, s, "app", "y"), []string{"a/1", "a/2"}; !slices.Equal(got, want) {
		t.Errorf("after update byIndex(app, y) = %v, want %v", got, want)
	}
	if n, b := s.size(); n != 3 || c == nil && b != 55 || c != nil && b < 3*50 {
		t.Errorf("size() = %d, %d, want 3 and 55 (the sizes given), or the JSON's size in a compact store", n, b)
	}
	if got, want := listed(s, "a", false), []string{"a/1@4", "a/2@2"}; !slices.Equal(got, want) {
		t.Errorf("each(a) = %v, want %v", got, want)
	}

	if !s.remove(kube.Key{Namespace: "a", Name: "2"}) {
		t.Errorf("remove(a/2) found nothing")
	}
	if s.remove(kube.Key{Namespace: "a", Name: "2"}) {
		t.Errorf("remove(a/2) twice found something")
	}
	if got, want := indexed(t, s, "app", "y"), []string{"a/1"}; !slices.Equal(got, want) {
		t.Errorf("after remove byIndex(app, y) = %v, want %v", got, want)
	}
	if obj, ok := s.get(kube.Key{Namespace: "b", Name: "1"}); !ok || obj.GetObjectMeta().Labels["app"] != "x" || obj.GroupVersionKind().Kind != "ConfigMap" && c != nil {
		t.Errorf("get(b/1) = %v, %v, want the ConfigMap labelled app=x", obj, ok)
	}
	keys := s.keys()
	slices.SortFunc(keys, func(a, b kube.Key) int { return cmp.Compare(a.String(), b.String()) })
	if want := []kube.Key{{Namespace: "a", Name: "1"}, {Namespace: "b", Name: "1"}}; !slices.Equal(keys, want) {
		t.Errorf("keys() = %v, want %v", keys, want)
	}
	if err := s.byIndex("missing", "x", func(any) bool { return true }); err == nil {
		t.Errorf("byIndex(missing) = nil, want an error")
	}
}

func TestStoreAddIndexLate(t *testing.T) {
	codecs(t, func(t *testing.T, c *codec) {
		s := newStore(c)
		s.put(cm("a", "1", "1", map[string]string{"app": "x"}), 1)
		if err := s.addIndex("app", byApp); err != nil {
			t.Fatal(err)
		}
		if got, want := indexed(t, s, "app", "x"), []string{"a/1"}; !slices.Equal(got, want) {
			t.Errorf("byIndex after late addIndex = %v, want %v", got, want)
		}
	})
}

func TestStoreReplace(t *testing.T) { codecs(t, testStoreReplace) }

func testStoreReplace(t *testing.T, c *codec) {
	s := newStore(c)
	if err := s.addIndex("app", byApp); err != nil {
		t.Fatal(err)
	}
	s.put(cm("a", "1", "1", map[string]string{"app": "x"}), 1)
	next := newState(c)
	next.add(cm("a", "2", "2", map[string]string{"app": "x"}), 2)
	next.add(cm("c", "3", "3", nil), 3)
	old := s.replace(next)
	if old.count != 1 {
		t.Errorf("replace returned a state of %d objects, want 1", old.count)
	}
	if got, want := listed(s, "", true), []string{"a/2@2", "c/3@3"}; !slices.Equal(got, want) {
		t.Errorf("after replace each = %v, want %v", got, want)
	}
	if got, want := indexed(t, s, "app", "x"), []string{"a/2"}; !slices.Equal(got, want) {
		t.Errorf("after replace byIndex(app, x) = %v, want %v", got, want)
	}
	if n, b := s.size(); n != 2 || c == nil && b != 5 {
		t.Errorf("size() = %d, %d, want 2, 5", n, b)
	}
}

// TestStoreReplaceIsAtomic checks that a reader never sees a mix of two
// states: every list holds all objects of one generation. The reader and
// the writer must interleave for that to mean anything, so the test goes
// on until the reader has both begun or ended reads while a replace was
// in progress and seen replaces land between its reads, and fails if
// that did not happen within a bound on the replaces.
func TestStoreReplaceIsAtomic(t *testing.T) {
	s := newStore(nil)
	const n = 50
	gen := func(rv string) *state {
		st := newState(nil)
		for i := range n {
			st.add(cm("ns", string(rune('a'+i%26))+string(rune('a'+i/26)), rv, nil), 1)
		}
		return st
	}
	s.replace(gen("0"))
	const (
		want        = 20 // reads during a replace, and replaces seen between reads
		maxReplaces = 20_000
	)
	var replacing atomic.Bool
	var during, changes atomic.Int64
	replaces := 0
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for replaces = 1; replaces < maxReplaces && (during.Load() < want || changes.Load() < want); replaces++ {
			next := gen(string(rune('0' + replaces%10)))
			replacing.Store(true)
			s.replace(next)
			replacing.Store(false)
		}
	})
	last := ""
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		overlapped := replacing.Load()
		rvs := map[string]int{}
		s.each("", true, func(v any) bool { rvs[v.(kube.Object).GetObjectMeta().ResourceVersion]++; return true })
		if replacing.Load() || overlapped {
			during.Add(1)
		}
		if len(rvs) != 1 {
			t.Fatalf("a reader saw a mix of states: %v", rvs)
		}
		for rv := range rvs {
			if last != "" && rv != last {
				changes.Add(1)
			}
			last = rv
		}
	}
	wg.Wait()
	if during.Load() < want || changes.Load() < want {
		t.Errorf("in %d replaces, %d reads ran while a replace was in progress and %d saw a new state, want %d each: reader and writer did not interleave",
			replaces, during.Load(), changes.Load(), want)
	}
	t.Logf("%d replaces, %d reads during one, %d new states seen", replaces, during.Load(), changes.Load())
}

// TestCompareNamespaces: namespaces sort as the server's keys
// "namespace/name" do.
func TestCompareNamespaces(t *testing.T) {
	nss := []string{"a", "a-b", "a0", "ab", "a.b", "b", "", "kube-system", "kube", "kube-public", "z-", "z"}
	got := slices.Clone(nss)
	slices.SortFunc(got, compareNamespaces)
	want := slices.Clone(nss)
	slices.SortFunc(want, func(x, y string) int { return strings.Compare(x+"/", y+"/") })
	if !slices.Equal(got, want) {
		t.Errorf("sorted by compareNamespaces: %q, want %q", got, want)
	}
}
