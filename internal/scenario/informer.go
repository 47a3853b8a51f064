// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// cutter is a transport that can cut every response body it handed out,
// as a dropped connection does: watches end mid-stream.
type cutter struct {
	next http.RoundTripper

	mu     sync.Mutex
	bodies map[*cutBody]bool
}

type cutBody struct {
	io.ReadCloser
	c *cutter
}

func (b *cutBody) Close() error {
	b.c.mu.Lock()
	delete(b.c.bodies, b)
	b.c.mu.Unlock()
	return b.ReadCloser.Close()
}

func (c *cutter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	b := &cutBody{ReadCloser: resp.Body, c: c}
	c.mu.Lock()
	c.bodies[b] = true
	c.mu.Unlock()
	resp.Body = b
	return resp, nil
}

// open counts the response bodies not yet closed: the open watches.
func (c *cutter) open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.bodies)
}

// cut closes every open response body; the readers see an error.
func (c *cutter) cut() int {
	c.mu.Lock()
	open := slices.Collect(maps.Keys(c.bodies))
	clear(c.bodies) // cut bodies are not open, even before their reader closes them
	c.mu.Unlock()
	for _, b := range open {
		b.ReadCloser.Close()
	}
	return len(open)
}

// cuttableClient returns a client whose connections the returned cutter
// can cut: the configuration's own transport (TLS and credentials
// included) wrapped.
func (f *fixture) cuttableClient(t *testing.T) (*kube.Client, *cutter) {
	var c *cutter
	client := f.wrappedClient(t, func(next http.RoundTripper) http.RoundTripper {
		c = &cutter{next: next, bodies: map[*cutBody]bool{}}
		return c
	})
	return client, c
}

// wrappedClient returns a client whose requests go through wrap's
// transport around the configuration's own (TLS and credentials
// included).
func (f *fixture) wrappedClient(t *testing.T, wrap func(http.RoundTripper) http.RoundTripper) *kube.Client {
	hc, err := f.env.Config.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	cfg := *f.env.Config
	cfg.Transport = wrap(hc.Transport)
	// The wrapped transport authenticates already.
	cfg.BearerToken, cfg.BearerTokenFile, cfg.Username, cfg.Password, cfg.Exec = "", "", "", "", nil
	client, err := kube.NewClient(&cfg, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// view is what a handler rebuilt from the events it got: key (name, or
// namespace/name) to resourceVersion.
type view struct {
	key  func(*kube.ConfigMap) string
	mu   sync.Mutex
	objs map[string]string
}

func (v *view) set(cm *kube.ConfigMap) {
	v.mu.Lock()
	v.objs[v.key(cm)] = cm.ResourceVersion
	v.mu.Unlock()
}

func (v *view) delete(cm *kube.ConfigMap) {
	v.mu.Lock()
	delete(v.objs, v.key(cm))
	v.mu.Unlock()
}

func (v *view) snapshot() map[string]string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return maps.Clone(v.objs)
}

// startViewed starts a ConfigMap informer of client with opts and a
// handler that keeps a view of it by name, waits for it to sync, and
// stops it (checking that Start returns nil) when the test ends.
func (f *fixture) startViewed(t *testing.T, client *kube.Client, opts cache.InformerOptions) (*cache.Informer[kube.ConfigMap], *view) {
	t.Helper()
	return f.startView(t, client, opts, func(cm *kube.ConfigMap) string { return cm.Name })
}

// startView is startViewed with the view's key.
func (f *fixture) startView(t *testing.T, client *kube.Client, opts cache.InformerOptions, key func(*kube.ConfigMap) string) (*cache.Informer[kube.ConfigMap], *view) {
	t.Helper()
	inf, err := cache.NewInformer[kube.ConfigMap](client, opts)
	if err != nil {
		t.Fatal(err)
	}
	v := &view{key: key, objs: map[string]string{}}
	if _, err := inf.AddEventHandler(cache.HandlerFuncs[*kube.ConfigMap]{
		AddFunc:    func(cm *kube.ConfigMap, _ bool) { v.set(cm) },
		UpdateFunc: func(_, cm *kube.ConfigMap, _ bool) { v.set(cm) },
		DeleteFunc: func(cm *kube.ConfigMap, _ bool) { v.delete(cm) },
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.run(t, "informer", inf.Start))
	if err := inf.WaitForSync(f.ctx); err != nil {
		t.Fatal(err)
	}
	return inf, v
}

// cachedEqual waits until the informer's store and the handler's view v
// hold exactly the objects of f.ns that sel selects (all for the empty
// sel), at the server's resourceVersions.
func (f *fixture) cachedEqual(t *testing.T, inf *cache.Informer[kube.ConfigMap], v *view, sel kube.ShardSelector) {
	t.Helper()
	f.eventually(t, "informer equals the server", func() error {
		var list kube.List[kube.ConfigMap]
		if err := f.c.List(f.ctx, &list, kube.ListOptions{Namespace: f.ns}); err != nil {
			return err
		}
		want := map[string]string{}
		for i := range list.Items {
			if sel.Matches(&list.Items[i]) {
				want[list.Items[i].Name] = list.Items[i].ResourceVersion
			}
		}
		if !sel.Empty() && (len(want) == 0 || len(want) == len(list.Items)) {
			return fmt.Errorf("the shard holds %d objects of %d: the scenario needs some in and some out", len(want), len(list.Items))
		}
		if err := storeHolds(inf, want); err != nil {
			return err
		}
		if got := v.snapshot(); !maps.Equal(got, want) {
			return fmt.Errorf("handler view %v, server %v", got, want)
		}
		return nil
	})
}

func testInformerAfterCuts(t *testing.T, f *fixture) {
	f.seed(t, 6)
	client, cut := f.cuttableClient(t)
	inf, v := f.startViewed(t, client, cache.InformerOptions{Namespaces: []string{f.ns}, Transform: cache.DropManagedFields})

	for round := range 3 {
		f.mustCreate(t, f.configMap(fmt.Sprintf("new-%d", round), nil, nil))
		if err := f.c.Patch(f.ctx, f.configMap(fmt.Sprintf("cm-%d", round+1), nil, nil), kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"round":"x"}}`)}); err != nil {
			t.Fatal(err)
		}
		f.eventually(t, "watch open", func() error {
			if cut.open() == 0 {
				return fmt.Errorf("round %d: the informer has no watch open", round)
			}
			return nil
		})
		if cut.cut() == 0 {
			t.Fatalf("round %d: no open watch to cut", round)
		}
		// Changes while the watch is down must arrive after it resumes.
		if err := f.c.Delete(f.ctx, f.configMap(fmt.Sprintf("cm-%d", round+4), nil, nil)); err != nil {
			t.Fatal(err)
		}
		f.mustCreate(t, f.configMap(fmt.Sprintf("gap-%d", round), nil, nil))
	}

	f.cachedEqual(t, inf, v, kube.ShardSelector{})
	st := inf.Stats()
	if st.Relists != 0 {
		t.Errorf("relists after watch cuts = %d, want 0 (resume from the last resourceVersion)", st.Relists)
	}
	if st.WatchRequests < 4 {
		t.Errorf("watches opened = %d, want at least 4 (the first and one after each cut)", st.WatchRequests)
	}
}

// storeHolds reports whether the informer's store holds exactly want:
// name → resourceVersion.
func storeHolds(inf *cache.Informer[kube.ConfigMap], want map[string]string) error {
	items, err := inf.List(kube.ListOptions{})
	if err != nil {
		return err
	}
	stored := map[string]string{}
	for _, cm := range items {
		stored[cm.Name] = cm.ResourceVersion
	}
	if !maps.Equal(stored, want) {
		return fmt.Errorf("store %v, server %v", stored, want)
	}
	return nil
}
