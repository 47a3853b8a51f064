// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// This file is the test harness: a kubetest server, a client, a recorder
// that rebuilds the server's state from handler events, and comparisons.

var configMaps = kube.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// newServer returns a server and a client for it. Call it inside the
// synctest bubble when the test uses one.
func newServer(t testing.TB, opts kubetest.Options) (*kubetest.Server, *kube.Client) {
	t.Helper()
	srv := newBareServer(t, opts)
	c, err := srv.Client(kube.ClientOptions{}) // unthrottled: tests count requests
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// newBareServer returns a server without the ConfigMap every server (and
// kubetest) holds in kube-system: the tests count ConfigMaps cluster-wide.
func newBareServer(t testing.TB, opts kubetest.Options) *kubetest.Server {
	t.Helper()
	srv := kubetest.New(opts)
	t.Cleanup(srv.Close)
	if err := srv.Delete(configMaps, "kube-system", "kube-apiserver-legacy-service-account-token-tracking"); err != nil {
		t.Fatal(err)
	}
	return srv
}

func createCM(t *testing.T, srv *kubetest.Server, ns, name string, data map[string]string) {
	t.Helper()
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": ns, "name": name, "labels": map[string]any{"app": "demo"}}, "data": data}
	if _, err := srv.Create(configMaps, obj); err != nil {
		t.Fatalf("create %s/%s: %v", ns, name, err)
	}
}

func updateCM(t *testing.T, srv *kubetest.Server, ns, name string, data map[string]string) {
	t.Helper()
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": ns, "name": name, "labels": map[string]any{"app": "demo"}}, "data": data}
	if _, err := srv.Update(configMaps, obj); err != nil {
		t.Fatalf("update %s/%s: %v", ns, name, err)
	}
}

func deleteCM(t *testing.T, srv *kubetest.Server, ns, name string) {
	t.Helper()
	if err := srv.Delete(configMaps, ns, name); err != nil {
		t.Fatalf("delete %s/%s: %v", ns, name, err)
	}
}

// serverState returns key → resourceVersion of the server's ConfigMaps in
// ns (all when empty), read without a request the counts would see.
func serverState(t *testing.T, srv *kubetest.Server, ns string) map[string]string {
	t.Helper()
	objs, err := srv.List(configMaps, ns)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, o := range objs {
		m := o["metadata"].(map[string]any)
		out[kube.Key{Namespace: m["namespace"].(string), Name: m["name"].(string)}.String()] = m["resourceVersion"].(string)
	}
	return out
}

// storeState returns key → resourceVersion of what the informer stores.
func storeState(i *informer) map[string]string {
	out := map[string]string{}
	i.store.each("", true, func(v any) bool {
		m := i.store.codec.load(v).GetObjectMeta()
		out[m.Key().String()] = m.ResourceVersion
		return true
	})
	return out
}

// recorder is a handler that rebuilds the state from the events it gets
// and counts them. It fails the test on an event that contradicts what it
// knows (an add of a known key, an update or delete of an unknown one).
type recorder struct {
	t  *testing.T
	mu sync.Mutex
	// state is key → resourceVersion, as the events say.
	state                               map[string]string
	adds, initialAdds, updates, resyncs int
	deletes, unknownDeletes             int
	log                                 []string
}

func newRecorder(t *testing.T) *recorder { return &recorder{t: t, state: map[string]string{}} }

func (r *recorder) OnAdd(obj kube.Object, initial bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := obj.GetObjectMeta()
	k := m.Key().String()
	if _, ok := r.state[k]; ok {
		r.t.Errorf("OnAdd(%s) of an object the handler has", k)
	}
	r.state[k] = m.ResourceVersion
	r.adds++
	if initial {
		r.initialAdds++
	}
	r.log = append(r.log, fmt.Sprintf("add %s@%s", k, m.ResourceVersion))
}

func (r *recorder) OnUpdate(oldObj, newObj kube.Object, isResync bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, n := oldObj.GetObjectMeta(), newObj.GetObjectMeta()
	k := n.Key().String()
	if got, ok := r.state[k]; !ok || got != o.ResourceVersion {
		r.t.Errorf("OnUpdate(%s): old rv %s, handler has %q (known %v)", k, o.ResourceVersion, got, ok)
	}
	r.state[k] = n.ResourceVersion
	switch {
	case isResync && (oldObj != newObj || o.ResourceVersion != n.ResourceVersion):
		r.t.Errorf("OnUpdate(%s) resync of rv %s to rv %s: a resync delivers the same object", k, o.ResourceVersion, n.ResourceVersion)
	case !isResync && o.ResourceVersion == n.ResourceVersion:
		r.t.Errorf("OnUpdate(%s) of rv %s to the same rv, not a resync", k, o.ResourceVersion)
	case isResync:
		r.resyncs++
	default:
		r.updates++
	}
	r.log = append(r.log, fmt.Sprintf("update %s@%s", k, n.ResourceVersion))
}

func (r *recorder) OnDelete(obj kube.Object, unknown bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := obj.GetObjectMeta().Key().String()
	if _, ok := r.state[k]; !ok {
		r.t.Errorf("OnDelete(%s) of an object the handler does not have", k)
	}
	delete(r.state, k)
	r.deletes++
	if unknown {
		r.unknownDeletes++
	}
	r.log = append(r.log, fmt.Sprintf("delete %s unknown=%v", k, unknown))
}

func (r *recorder) snapshot() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.state)
}

// checkConsistent fails unless the store and every recorder equal the
// server's state.
func checkConsistent(t *testing.T, srv *kubetest.Server, i *informer, recs ...*recorder) {
	t.Helper()
	want := map[string]string{}
	if len(i.scope()) == 0 {
		want = serverState(t, srv, "")
	}
	for _, ns := range i.scope() {
		maps.Copy(want, serverState(t, srv, ns))
	}
	if got := storeState(i); !maps.Equal(got, want) {
		t.Errorf("store = %v\nserver = %v", sorted(got), sorted(want))
	}
	for n, r := range recs {
		if got := r.snapshot(); !maps.Equal(got, want) {
			t.Errorf("handler %d's view = %v\nserver = %v", n, sorted(got), sorted(want))
		}
	}
}

func sorted(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"@"+v)
	}
	slices.Sort(out)
	return out
}

// startInformer runs inf until the test ends (or stop is called) and
// checks that Start returns nil.
func startInformer(t *testing.T, inf ObjectInformer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.(interface{ Start(context.Context) error }).Start(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Start = %v, want nil", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func newCMInformer(t *testing.T, c *kube.Client, opts InformerOptions) *informer {
	t.Helper()
	inf, err := NewInformer[kube.ConfigMap](c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return inf.inf
}

// startRecorded starts a ConfigMap informer with a recorder, waits for it
// to sync and checks it against the server.
func startRecorded(t *testing.T, srv *kubetest.Server, c *kube.Client, opts InformerOptions) (*informer, *recorder) {
	t.Helper()
	inf, rec := startSynced(t, c, opts)
	checkConsistent(t, srv, inf, rec)
	return inf, rec
}

// startSynced starts a ConfigMap informer with a recorder and waits for it
// to sync and for the recorder to hear it all.
func startSynced(t *testing.T, c *kube.Client, opts InformerOptions) (*informer, *recorder) {
	t.Helper()
	inf := newCMInformer(t, c, opts)
	rec := newRecorder(t)
	if _, err := inf.AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	startInformer(t, inf)
	waitSynced(t, inf)
	synctest.Wait()
	return inf, rec
}

func waitSynced(t *testing.T, inf ObjectInformer) {
	t.Helper()
	if err := inf.WaitForSync(context.Background()); err != nil {
		t.Fatalf("WaitForSync: %v", err)
	}
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }
