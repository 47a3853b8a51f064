// SPDX-License-Identifier: Apache-2.0

package mirror

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
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
		synctest.Wait() // the mirror's cache has seen the namespaces before the source comes
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
		if err := e.Client.Create(e.Ctx, src); err != nil {
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
		e.Eventually("finalizer on the source", func() error {
			s, err := e.secret(key.Namespace, key.Name)
			if err != nil || s == nil || !s.HasFinalizer(Finalizer) {
				return fmt.Errorf("source %v (%v), want the finalizer %s", s, err, Finalizer)
			}
			return nil
		})
		// The event follows the writes the test saw: wait for it too.
		e.Eventually("one Created event for the three copies", func() error {
			if !e.Events.Has("Normal Created: created copies of secret default/db-password in dev-1, team-a, team-b") {
				return fmt.Errorf("no such event")
			}
			return nil
		})

		// Change the source: every copy follows.
		patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"password":"czNjcjN0"}}`)} // "s3cr3t"
		if err := e.Client.Patch(e.Ctx, &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}, patch); err != nil {
			t.Fatal(err)
		}
		for _, ns := range []string{"dev-1", "team-a", "team-b"} {
			e.Eventually("copy in "+ns+" updated", func() error {
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
		if err := e.Client.Patch(e.Ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "dev-2"}}, relabel); err != nil {
			t.Fatal(err)
		}
		e.wantCopies("Secret", key, "dev-1", "missing", "team-a", "team-b")

		// Narrow the annotation: the copies no longer wanted go.
		narrow := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"annotations":{"` + AnnotationTo + `":"team-a","` + AnnotationToSelector + `":null}}}`)}
		if err := e.Client.Patch(e.Ctx, &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}, narrow); err != nil {
			t.Fatal(err)
		}
		e.wantCopies("Secret", key, "team-a")
		// The event follows the writes the test saw: wait for it too.
		e.Eventually("one Deleted event for the copies no longer wanted", func() error {
			if !e.Events.Has("Normal Deleted: deleted copies of secret default/db-password in dev-1, missing, team-b") {
				return fmt.Errorf("no such event")
			}
			return nil
		})

		// A copy changed by hand is put back.
		edit := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"password":"aGFja2Vk"},"metadata":{"labels":{"app":"mine"}}}`)} // "hacked"
		if err := e.Client.Patch(e.Ctx, &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: "team-a", Name: key.Name}}, edit); err != nil {
			t.Fatal(err)
		}
		e.Eventually("copy in team-a put back", func() error {
			c, err := e.secret("team-a", key.Name)
			if err != nil || c == nil || string(c.Data["password"]) != "s3cr3t" || c.Labels["app"] != "db" {
				return fmt.Errorf("copy %+v (%v), want password s3cr3t and label app=db", c, err)
			}
			return nil
		})

		// A copy deleted by hand comes back.
		if err := e.Client.Delete(e.Ctx, &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: "team-a", Name: key.Name}}); err != nil {
			t.Fatal(err)
		}
		e.Eventually("copy in team-a made again", func() error {
			c, err := e.secret("team-a", key.Name)
			if err != nil || c == nil {
				return fmt.Errorf("copy %v (%v)", c, err)
			}
			return nil
		})

		// Delete the source: the copies go, then the finalizer, then the
		// source.
		if err := e.Client.Delete(e.Ctx, src); err != nil {
			t.Fatal(err)
		}
		e.wantCopies("Secret", key)
		e.Eventually("source gone", func() error {
			s, err := e.secret(key.Namespace, key.Name)
			if err != nil || s != nil {
				return fmt.Errorf("source still there: finalizers %v (%v)", s.Finalizers, err)
			}
			return nil
		})
	})
}

// ConfigMaps are mirrored as Secrets are, data and binaryData both.
func TestMirrorConfigMap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startMirror(t, "")
		e.namespace("team-a", map[string]string{"team": "a"})
		src := &kube.ConfigMap{
			ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "settings", Annotations: map[string]string{AnnotationToSelector: "team"}},
			Data:       map[string]string{"colour": "blue"},
			BinaryData: map[string][]byte{"logo": {0, 1, 2}},
		}
		if err := e.Client.Create(e.Ctx, src); err != nil {
			t.Fatal(err)
		}
		e.wantCopies("ConfigMap", src.Key(), "team-a")
		c := &kube.ConfigMap{}
		if err := e.Client.Get(e.Ctx, kube.Key{Namespace: "team-a", Name: "settings"}, c); err != nil {
			t.Fatal(err)
		}
		if c.Data["colour"] != "blue" || string(c.BinaryData["logo"]) != "\x00\x01\x02" || c.Labels[LabelOfKind] != "ConfigMap" {
			t.Errorf("copy = %+v, want the source's data, binaryData and kind label", c)
		}
		// A Secret of the same name is another object: no Secret copies.
		if got, err := e.copiesOf("Secret", src.Key()); err != nil || len(got) != 0 {
			t.Errorf("Secret copies of a ConfigMap: %v, %v", got, err)
		}
	})
}

// What the mirror must leave alone: a copy that asks to be mirrored, an
// object in a target namespace that is not its copy, and a source whose
// annotation does not parse (its copies stay).
func TestMirrorLeavesAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startMirror(t, "")
		e.namespace("team-a", nil)
		e.namespace("team-b", nil)
		// Someone else's Secret holds the name in team-b.
		foreign := &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: "team-b", Name: "token"}, Data: map[string][]byte{"k": []byte("theirs")}}
		if err := e.Client.Create(e.Ctx, foreign); err != nil {
			t.Fatal(err)
		}
		src := &kube.Secret{
			ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "token", Annotations: map[string]string{AnnotationTo: "team-a,team-b"}},
			Data:       map[string][]byte{"k": []byte("ours")},
		}
		if err := e.Client.Create(e.Ctx, src); err != nil {
			t.Fatal(err)
		}
		e.wantCopies("Secret", src.Key(), "team-a")
		e.Eventually("a NameTaken warning", func() error {
			if !e.Events.Has("Warning NameTaken: not copying secret default/token to team-b: an object that is not its copy has the name there") {
				return fmt.Errorf("no warning")
			}
			return nil
		})
		if s, err := e.secret("team-b", "token"); err != nil || string(s.Data["k"]) != "theirs" || len(s.Labels) != 0 {
			t.Errorf("foreign Secret = %+v, %v: want it untouched", s, err)
		}

		// A copy that carries the annotation is not mirrored.
		patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"annotations":{"` + AnnotationTo + `":"team-b"}}}`)}
		if err := e.Client.Patch(e.Ctx, &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: "team-a", Name: "token"}}, patch); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Second)
		if got, err := e.copiesOf("Secret", kube.Key{Namespace: "team-a", Name: "token"}); err != nil || len(got) != 0 {
			t.Errorf("copies of a copy: %v, %v; want none", got, err)
		}
		if s, _ := e.secret("team-a", "token"); s == nil || s.HasFinalizer(Finalizer) {
			t.Errorf("copy = %+v: want it there, without the finalizer", s)
		}

		// A name too long for a label value: a warning, no copy.
		long := &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: strings.Repeat("n", 64), Annotations: map[string]string{AnnotationTo: "team-a"}}}
		if err := e.Client.Create(e.Ctx, long); err != nil {
			t.Fatal(err)
		}
		e.Eventually("a NameTooLong warning", func() error {
			if !e.Events.Has("Warning NameTooLong: cannot mirror default/" + long.Name) {
				return fmt.Errorf("no warning")
			}
			return nil
		})
		if s, err := e.secret("team-a", long.Name); err != nil || s != nil {
			t.Errorf("copy of a source with a long name = %v, %v; want none", s, err)
		}

		// A selector that does not parse: a warning, and the copies stay.
		bad := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"annotations":{"` + AnnotationToSelector + `":"team in (a"}}}`)}
		if err := e.Client.Patch(e.Ctx, src, bad); err != nil {
			t.Fatal(err)
		}
		e.Eventually("an InvalidAnnotation warning", func() error {
			if !e.Events.Has("Warning InvalidAnnotation: annotation " + AnnotationToSelector) {
				return fmt.Errorf("no warning")
			}
			return nil
		})
		e.wantCopies("Secret", src.Key(), "team-a")
	})
}

// With --namespace, sources elsewhere are not mirrored.
func TestMirrorNamespaceLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startMirror(t, "apps")
		e.namespace("apps", nil)
		e.namespace("other", nil)
		e.namespace("team-a", nil)
		for _, ns := range []string{"apps", "other"} {
			src := &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "s", Annotations: map[string]string{AnnotationTo: "team-a"}}}
			if err := e.Client.Create(e.Ctx, src); err != nil {
				t.Fatal(err)
			}
		}
		e.wantCopies("Secret", kube.Key{Namespace: "apps", Name: "s"}, "team-a")
		if got, err := e.copiesOf("Secret", kube.Key{Namespace: "other", Name: "s"}); err != nil || len(got) != 0 {
			t.Errorf("copies of other/s: %v, %v; want none", got, err)
		}
		if s, _ := e.secret("other", "s"); s == nil || s.HasFinalizer(Finalizer) {
			t.Errorf("other/s = %+v: want it without the finalizer", s)
		}
	})
}

// Copies whose source is gone (it lost its finalizer by hand, or went
// while the mirror was down) are deleted; so are those of a source whose
// annotations were removed, and then the finalizer goes.
func TestMirrorOrphansAndUnannotated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startMirror(t, "")
		e.namespace("team-a", nil)
		orphan := &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: "team-a", Name: "gone", Labels: map[string]string{
			LabelOfKind: "Secret", LabelOfNamespace: "default", LabelOfName: "gone"}}}
		if err := e.Client.Create(e.Ctx, orphan); err != nil {
			t.Fatal(err)
		}
		e.wantCopies("Secret", kube.Key{Namespace: "default", Name: "gone"})

		src := &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "s", Annotations: map[string]string{AnnotationTo: "team-a"}}}
		if err := e.Client.Create(e.Ctx, src); err != nil {
			t.Fatal(err)
		}
		e.wantCopies("Secret", src.Key(), "team-a")
		unannotate := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"annotations":null}}`)}
		if err := e.Client.Patch(e.Ctx, src, unannotate); err != nil {
			t.Fatal(err)
		}
		e.wantCopies("Secret", src.Key())
		e.Eventually("finalizer released", func() error {
			if s, err := e.secret("default", "s"); err != nil || s == nil || s.HasFinalizer(Finalizer) {
				return fmt.Errorf("source %+v, %v: want it there without the finalizer", s, err)
			}
			return nil
		})
	})
}

// A copy the server refuses to change in place (an immutable Secret whose
// source changed; kubetest does not enforce immutability, so the refusal
// is injected) is deleted and made again.
func TestMirrorRemakesRefusedCopy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startMirror(t, "")
		e.namespace("team-a", nil)
		src := &kube.Secret{
			ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "cert", Annotations: map[string]string{AnnotationTo: "team-a"}},
			Data:       map[string][]byte{"v": []byte("1")},
		}
		if err := e.Client.Create(e.Ctx, src); err != nil {
			t.Fatal(err)
		}
		e.wantCopies("Secret", src.Key(), "team-a")
		first, err := e.secret("team-a", "cert")
		if err != nil || first == nil {
			t.Fatalf("copy: %v, %v", first, err)
		}
		synctest.Wait()
		e.Server.FailNext(1, func(ri kubetest.RequestInfo) bool {
			return ri.Verb == "patch" && ri.Resource == "secrets" && ri.Namespace == "team-a"
		}, kube.NewStatusError(422, kube.ReasonInvalid, `Secret "cert" is invalid: data: Forbidden: field is immutable when `+"`immutable`"+` is set`))
		patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"v":"Mg=="}}`)} // "2"
		if err := e.Client.Patch(e.Ctx, src, patch); err != nil {
			t.Fatal(err)
		}
		e.Eventually("copy made again with the new data", func() error {
			c, err := e.secret("team-a", "cert")
			if err != nil || c == nil || string(c.Data["v"]) != "2" {
				return fmt.Errorf("copy %+v (%v), want v=2", c, err)
			}
			if c.UID == first.UID {
				return fmt.Errorf("copy has the uid of the first one: changed in place, not made again")
			}
			return nil
		})
	})
}
