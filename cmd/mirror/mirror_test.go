// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"maps"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/kube"
)

// The life of a mirrored Secret, end to end on kubetest: created, changed,
// a namespace added, the annotation narrowed, deleted.
func TestMirrorSecretLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startMirror(t, "")
		e.namespace("team-a", nil)
		e.namespace("team-b", nil)
		e.namespace("dev-1", map[string]string{"env": "dev"})
		e.namespace("prod-1", map[string]string{"env": "prod"})
		key := kube.Key{Namespace: "default", Name: "db-password"}
		src := &kube.Secret{
			ObjectMeta: kube.ObjectMeta{Namespace: key.Namespace, Name: key.Name,
				Labels: map[string]string{"app": "db"},
				Annotations: map[string]string{
					// default is the source's own namespace: never a target.
					AnnotationTo:         "team-a, team-b,default,missing",
					AnnotationToSelector: "env=dev",
				}},
			Type: "Opaque",
			Data: map[string][]byte{"password": []byte("hunter2")},
		}
		if err := e.client.Create(e.ctx, src); err != nil {
			t.Fatal(err)
		}

		e.wantCopies("Secret", key, "dev-1", "team-a", "team-b")
		for _, ns := range []string{"dev-1", "team-a", "team-b"} {
			c, err := e.secret(ns, key.Name)
			if err != nil || c == nil {
				t.Fatalf("copy in %s: %v, %v", ns, c, err)
			}
			wantLabels := map[string]string{"app": "db", LabelOfNamespace: "default", LabelOfName: "db-password", LabelOfKind: "Secret"}
			if !maps.Equal(c.Labels, wantLabels) {
				t.Errorf("copy in %s: labels %v, want %v", ns, c.Labels, wantLabels)
			}
			if string(c.Data["password"]) != "hunter2" || c.Type != "Opaque" || len(c.Annotations) != 0 {
				t.Errorf("copy in %s: data %q type %q annotations %v, want the source's data and type, no annotations", ns, c.Data, c.Type, c.Annotations)
			}
		}
		e.eventually("finalizer on the source", func() error {
			s, err := e.secret(key.Namespace, key.Name)
			if err != nil || s == nil || !s.HasFinalizer(Finalizer) {
				return fmt.Errorf("source %v (%v), want the finalizer %s", s, err, Finalizer)
			}
			return nil
		})
		if !e.events.has("created copy of secret default/db-password in team-a") {
			t.Errorf("events:\n%s\nwant one for the copy in team-a", e.events)
		}

		// Change the source: every copy follows.
		patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"password":"czNjcjN0"}}`)} // "s3cr3t"
		if err := e.client.Patch(e.ctx, &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}, patch); err != nil {
			t.Fatal(err)
		}
		for _, ns := range []string{"dev-1", "team-a", "team-b"} {
			e.eventually("copy in "+ns+" updated", func() error {
				c, err := e.secret(ns, key.Name)
				if err != nil || c == nil || string(c.Data["password"]) != "s3cr3t" {
					return fmt.Errorf("copy %v (%v), want password s3cr3t", c, err)
				}
				return nil
			})
		}

		// A namespace that appears and matches the selector gets a copy;
		// one that is named but did not exist gets one when it appears.
		e.namespace("dev-2", map[string]string{"env": "dev"})
		e.namespace("missing", nil)
		e.wantCopies("Secret", key, "dev-1", "dev-2", "missing", "team-a", "team-b")

		// Relabelling a namespace out of the selector removes its copy.
		relabel := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"labels":{"env":"prod"}}}`)}
		if err := e.client.Patch(e.ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "dev-2"}}, relabel); err != nil {
			t.Fatal(err)
		}
		e.wantCopies("Secret", key, "dev-1", "missing", "team-a", "team-b")

		// Narrow the annotation: the copies no longer wanted go.
		narrow := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"annotations":{"` + AnnotationTo + `":"team-a","` + AnnotationToSelector + `":null}}}`)}
		if err := e.client.Patch(e.ctx, &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}, narrow); err != nil {
			t.Fatal(err)
		}
		e.wantCopies("Secret", key, "team-a")
		if !e.events.has("deleted copy of secret default/db-password in team-b") {
			t.Errorf("events:\n%s\nwant one for the copy deleted in team-b", e.events)
		}

		// A copy deleted by hand comes back.
		if err := e.client.Delete(e.ctx, &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: "team-a", Name: key.Name}}, kube.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventually("copy in team-a made again", func() error {
			c, err := e.secret("team-a", key.Name)
			if err != nil || c == nil {
				return fmt.Errorf("copy %v (%v)", c, err)
			}
			return nil
		})

		// Delete the source: the copies go, then the finalizer, then the
		// source.
		if err := e.client.Delete(e.ctx, src, kube.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.wantCopies("Secret", key)
		e.eventually("source gone", func() error {
			s, err := e.secret(key.Namespace, key.Name)
			if err != nil || s != nil {
				return fmt.Errorf("source still there: finalizers %v (%v)", s.Finalizers, err)
			}
			return nil
		})
	})
}
