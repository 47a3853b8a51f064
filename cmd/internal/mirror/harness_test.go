// SPDX-License-Identifier: Apache-2.0

package mirror

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/cmd/internal/operator/operatortest"
	"github.com/kubeloop/kubeloop/kube"
)

// This file is the test harness: the mirror's controllers on a kubetest
// server, run by the least a manager does (operatortest.Harness: a cache,
// a registry of controllers), in-process so that tests run inside
// synctest bubbles.

// env is a kubetest server with the mirror running on it.
type env struct{ *operatortest.Env }

// startMirror starts the mirror's controllers on a new kubetest server,
// sources limited to namespace (all when ""), until the test ends. Call
// it inside a synctest bubble.
func startMirror(t *testing.T, namespace string) env {
	t.Helper()
	return env{operatortest.StartEnv(t, "mirror-test", func(ctx context.Context, h *operatortest.Harness, events *operatortest.Recorder) error {
		return Setup(ctx, SetupOptions{Manager: h, Cache: h.Cache, Client: h.Client, Events: events, Namespace: namespace, Workers: 2})
	})}
}

// namespace creates a namespace with labels.
func (e env) namespace(name string, labels map[string]string) {
	e.T.Helper()
	ns := &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: name, Labels: labels}}
	if err := e.Client.Create(e.Ctx, ns); err != nil {
		e.T.Fatal(err)
	}
}

// secret reads a Secret from the server; nil when there is none.
func (e env) secret(ns, name string) (*kube.Secret, error) {
	s := &kube.Secret{}
	err := e.Client.Get(e.Ctx, kube.Key{Namespace: ns, Name: name}, s)
	if kube.IsNotFound(err) {
		return nil, nil
	}
	return s, err
}

// copiesOf lists the namespaces holding a Secret labelled as a copy of
// the source at key, sorted.
func (e env) copiesOf(kind string, key kube.Key) ([]string, error) {
	sel := kube.SelectorFromSet(map[string]string{LabelOfKind: kind, LabelOfNamespace: key.Namespace, LabelOfName: key.Name})
	list := &kube.List[kube.PartialObjectMetadata]{}
	list.SetGroupVersionKind(kube.GroupVersionKind{Version: "v1", Kind: kind + "List"})
	if err := e.Client.List(e.Ctx, list, kube.ListOptions{LabelSelector: sel}); err != nil {
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
func (e env) wantCopies(kind string, key kube.Key, namespaces ...string) {
	e.T.Helper()
	want := strings.Join(namespaces, ",")
	e.Eventually(fmt.Sprintf("copies of %s %s in [%s]", kind, key, want), func() error {
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
