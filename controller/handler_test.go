// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/queue"
)

// fakeQueue records what handlers add.
type fakeQueue struct {
	mu   sync.Mutex
	adds []string // "ns/name@priority"
}

func (q *fakeQueue) Add(r Request) { q.AddWithOptions(r, queue.AddOptions{}) }
func (q *fakeQueue) AddAfter(r Request, d time.Duration) {
	q.AddWithOptions(r, queue.AddOptions{After: d})
}
func (q *fakeQueue) AddWithOptions(r Request, o queue.AddOptions) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.adds = append(q.adds, fmt.Sprintf("%s@%d", r, o.Priority))
}

func (q *fakeQueue) take() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.adds
	q.adds = nil
	return out
}

func obj(ns, name, rv string, owners ...kube.OwnerReference) *kube.ConfigMap {
	return &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv, OwnerReferences: owners}}
}

func ev(t ChangeType, o, old kube.Object) Change {
	e := Change{Type: t, Object: o, Old: old}
	normalize(&e)
	return e
}

// resync is the update a cache's resync delivers.
func resync(o kube.Object) Change {
	e := ev(ChangeUpdate, o, o)
	e.Resync = true
	return e
}

func TestEnqueueObjectPriorities(t *testing.T) {
	a1, a2 := obj("ns", "a", "1", nil...), obj("ns", "a", "2")
	tests := []struct {
		name string
		ev   Change
		want string
	}{
		{"create", ev(ChangeCreate, a1, nil), "ns/a@0"},
		{"create in initial list", Change{Type: ChangeCreate, Object: a1, Key: a1.Key(), InInitialList: true}, "ns/a@-100"},
		{"update", ev(ChangeUpdate, a2, a1), "ns/a@0"},
		{"resync", resync(a1), "ns/a@-100"},
		// A resync is what the cache says is one, not what the objects
		// look like.
		{"same object, not a resync", ev(ChangeUpdate, a1, a1), "ns/a@0"},
		{"delete", ev(ChangeDelete, a1, nil), "ns/a@0"},
		{"generic", ev(ChangeGeneric, a1, nil), "ns/a@0"},
		{"generic key only", func() Change { e := Change{Key: kube.Key{Name: "cluster"}}; normalize(&e); return e }(), "cluster@0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q fakeQueue
			EnqueueObject().Handle(context.Background(), tt.ev, &q)
			if got := q.take(); !slices.Equal(got, []string{tt.want}) {
				t.Errorf("EnqueueObject(%s event) queued %v, want [%s]", tt.ev.Type, got, tt.want)
			}
		})
	}
}

func ref(apiVersion, kind, name string, controller bool) kube.OwnerReference {
	return kube.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: "uid-" + name, Controller: &controller}
}

// widget is a custom kind for owner tests.
type widget struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
}

func (*widget) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
}

func TestEnqueueOwner(t *testing.T) {
	owned := obj("ns", "dep", "2",
		ref("example.com/v1", "Widget", "w1", true),
		ref("example.com/v1beta1", "Widget", "w2", false), // another version: same kind
		ref("other.com/v1", "Widget", "x", true),          // another group
		ref("example.com/v1", "Gadget", "g", false),       // another kind
		ref("example.com/v1", "Widget", "w1", false),      // a duplicate
	)
	before := obj("ns", "dep", "1", ref("example.com/v1", "Widget", "w0", true))
	tests := []struct {
		name string
		opts OwnerOptions
		ev   Change
		want []string
	}{
		{"any owner", OwnerOptions{}, ev(ChangeCreate, owned, nil), []string{"ns/w1@0", "ns/w2@0"}},
		{"controller only", OwnerOptions{OnlyController: true}, ev(ChangeCreate, owned, nil), []string{"ns/w1@0"}},
		{"cluster-scoped owner", OwnerOptions{ClusterScoped: true}, ev(ChangeDelete, owned, nil), []string{"w1@0", "w2@0"}},
		{"update: old and new owners", OwnerOptions{OnlyController: true}, ev(ChangeUpdate, owned, before), []string{"ns/w1@0", "ns/w0@0"}},
		{"resync: low priority", OwnerOptions{OnlyController: true}, resync(owned), []string{"ns/w1@-100"}},
		{"no owner", OwnerOptions{}, ev(ChangeCreate, obj("ns", "lonely", "1"), nil), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q fakeQueue
			EnqueueOwner(&widget{}, tt.opts).Handle(context.Background(), tt.ev, &q)
			if got := q.take(); !slices.Equal(got, tt.want) {
				t.Errorf("EnqueueOwner(%+v) queued %v, want %v", tt.opts, got, tt.want)
			}
		})
	}
}

func TestEnqueueMapped(t *testing.T) {
	// Map each object to the requests named in its "targets" label.
	h := EnqueueMapped(func(_ context.Context, o kube.Object) []Request {
		var out []Request
		for n := range strings.FieldsSeq(o.GetObjectMeta().Labels["targets"]) {
			out = append(out, req("ns", n))
		}
		return out
	})
	withTargets := func(rv, targets string) *kube.ConfigMap {
		o := obj("ns", "src", rv)
		o.Labels = map[string]string{"targets": targets}
		return o
	}
	tests := []struct {
		name string
		ev   Change
		want []string
	}{
		{"create: one to many", ev(ChangeCreate, withTargets("1", "a b c"), nil), []string{"ns/a@0", "ns/b@0", "ns/c@0"}},
		{"none", ev(ChangeDelete, withTargets("1", ""), nil), nil},
		{"update: old and new, once each", ev(ChangeUpdate, withTargets("2", "b c"), withTargets("1", "a b")), []string{"ns/b@0", "ns/c@0", "ns/a@0"}},
		{"initial list: low priority", Change{Type: ChangeCreate, Object: withTargets("1", "a"), InInitialList: true}, []string{"ns/a@-100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q fakeQueue
			h.Handle(context.Background(), tt.ev, &q)
			if got := q.take(); !slices.Equal(got, tt.want) {
				t.Errorf("queued %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHandlerConstructorsPanicOnNil(t *testing.T) {
	for name, fn := range map[string]func(){
		"EnqueueOwner(nil)":     func() { EnqueueOwner(nil, OwnerOptions{}) },
		"EnqueueOwner(no kind)": func() { EnqueueOwner(&kube.Unstructured{}, OwnerOptions{}) },
		"EnqueueMapped(nil)":    func() { EnqueueMapped(nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			fn()
		}()
	}
}

// TestOwnerAndMapEnqueueEndToEnd runs a Widget controller that hears about
// the ConfigMaps the Widgets own, and about the ConfigMaps that name a
// Widget in an annotation.
func TestOwnerAndMapEnqueueEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t)
		inf := startCMInformer(t, client)
		rec := newRecorder(nil)
		c := mustNew(t, "widgets", rec, Options{})
		mustWatch(t, c, Kind(inf.ObjectInformer(), EnqueueOwner(&widget{}, OwnerOptions{OnlyController: true})))
		mustWatch(t, c, Kind(inf.ObjectInformer(), EnqueueMapped(func(_ context.Context, o kube.Object) []Request {
			if w := o.GetObjectMeta().Labels["widget"]; w != "" {
				return []Request{req(o.GetObjectMeta().Namespace, w)}
			}
			return nil
		})))
		startController(t, c)
		synctest.Wait()

		ctrl := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "name": "w1", "uid": "u1", "controller": true}
		createCM(t, srv, cm{ns: "default", name: "owned", owners: []any{ctrl}})
		createCM(t, srv, cm{ns: "default", name: "labelled", labels: map[string]any{"widget": "w2"}})
		createCM(t, srv, cm{ns: "default", name: "unrelated"})
		synctest.Wait()
		got := slices.Sorted(slices.Values(rec.order()))
		if want := []string{"default/w1", "default/w2"}; !slices.Equal(got, want) {
			t.Errorf("reconciled %v, want %v", got, want)
		}
		if err := srv.Delete(configMaps, "default", "owned"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := rec.count(req("default", "w1")); n != 2 {
			t.Errorf("owner reconciled %d times after its ConfigMap's deletion, want 2", n)
		}
	})
}
