// SPDX-License-Identifier: Apache-2.0

package mirror

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cmd/internal/operator/operatortest"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// This file is the test harness: the mirror's controllers on a kubetest
// server, run by the least a manager does (operatortest.Harness: a cache,
// a registry of controllers), in-process so that tests run inside
// synctest bubbles.

// env is a kubetest server with the mirror running on it.
type env struct {
	t      *testing.T
	ctx    context.Context
	srv    *kubetest.Server
	client *kube.Client
	events *operatortest.Recorder
}

// startMirror starts the mirror's controllers on a new kubetest server,
// sources limited to namespace (all when ""), until the test ends. Call
// it inside a synctest bubble.
func startMirror(t *testing.T, namespace string) *env {
	t.Helper()
	h := operatortest.New(t, "mirror-test")
	e := &env{t: t, ctx: t.Context(), srv: h.Server, client: h.Client, events: &operatortest.Recorder{}}
	err := Setup(e.ctx, Config{Manager: h, Cache: h.Cache, Client: h.Client, Events: e.events, Namespace: namespace, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	h.Start(e.ctx)
	return e
}

// eventually checks cond every 100ms (of the bubble's fake time) for up to
// a minute, and fails the test with cond's last error if it never holds.
func (e *env) eventually(what string, cond func() error) {
	e.t.Helper()
	var err error
	for range 600 {
		if err = cond(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	e.t.Fatalf("%s: %v\nevents:\n%s", what, err, e.events)
}

// namespace creates a namespace with labels.
func (e *env) namespace(name string, labels map[string]string) {
	e.t.Helper()
	ns := &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: name, Labels: labels}}
	if err := e.client.Create(e.ctx, ns); err != nil {
		e.t.Fatal(err)
	}
}

// secret reads a Secret from the server; nil when there is none.
func (e *env) secret(ns, name string) (*kube.Secret, error) {
	s := &kube.Secret{}
	err := e.client.Get(e.ctx, kube.Key{Namespace: ns, Name: name}, s)
	if kube.IsNotFound(err) {
		return nil, nil
	}
	return s, err
}

// copiesOf lists the namespaces holding a Secret labelled as a copy of
// the source at key, sorted.
func (e *env) copiesOf(kind string, key kube.Key) ([]string, error) {
	sel := kube.SelectorFromSet(map[string]string{LabelOfKind: kind, LabelOfNamespace: key.Namespace, LabelOfName: key.Name})
	list := &kube.List[kube.PartialObjectMetadata]{}
	list.SetGroupVersionKind(kube.GroupVersionKind{Version: "v1", Kind: kind + "List"})
	if err := e.client.List(e.ctx, list, kube.ListOptions{LabelSelector: sel}); err != nil {
		return nil, err
	}
	var out []string
	for _, o := range list.Items {
		out = append(out, o.Namespace)
	}
	slices.Sort(out)
	return out, nil
}

// wantCopies waits until the source's copies are exactly in namespaces.
func (e *env) wantCopies(kind string, key kube.Key, namespaces ...string) {
	e.t.Helper()
	want := strings.Join(namespaces, ",")
	e.eventually(fmt.Sprintf("copies of %s %s in [%s]", kind, key, want), func() error {
		got, err := e.copiesOf(kind, key)
		if err != nil {
			return err
		}
		if strings.Join(got, ",") != want {
			return fmt.Errorf("copies in [%s]", strings.Join(got, ","))
		}
		return nil
	})
}
