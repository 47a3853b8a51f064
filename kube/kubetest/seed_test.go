// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/kube"
)

func TestSeedingMethods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		w := openWatch(t, c, "/api/v1/configmaps?watch=1&resourceVersion="+s.CurrentResourceVersion())

		typed := kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Name: "typed"}, Data: map[string]string{"a": "1"}}
		got, err := s.Create(gvrConfigMaps, &typed)
		if err != nil {
			t.Fatalf("Create(typed): %v", err)
		}
		if got["kind"] != "ConfigMap" || field(got, "metadata.namespace") != "default" || field(got, "metadata.uid") == nil {
			t.Errorf("Create(typed) = %v", got)
		}
		if _, err := s.Create(gvrConfigMaps, []byte(`{"metadata":{"name":"raw","namespace":"kube-public"}}`)); err != nil {
			t.Fatalf("Create(raw): %v", err)
		}
		if _, err := s.Create(gvrConfigMaps, &typed); !kube.IsAlreadyExists(err) {
			t.Errorf("second Create: %v, want AlreadyExists", err)
		}
		if e := w.next(); e["type"] != "ADDED" || field(e, "object.metadata.name") != "typed" {
			t.Errorf("watch saw %s, want ADDED typed", summary(e))
		}

		got["data"] = map[string]any{"a": "2"}
		if got, err = s.Update(gvrConfigMaps, got); err != nil || field(got, "data.a") != "2" {
			t.Fatalf("Update = %v, %v", got, err)
		}
		// kube-system holds the ConfigMap every server starts with.
		list, err := s.List(gvrConfigMaps, "")
		if err != nil || len(list) != 3 || field(list[0], "metadata.namespace") != "default" ||
			field(list[1], "metadata.name") != "raw" {
			t.Errorf("List(all) = %v, %v; want default/typed then kube-public/raw", list, err)
		}
		if list, _ := s.List(gvrConfigMaps, "kube-public"); len(list) != 1 {
			t.Errorf("List(kube-public) has %d objects, want 1", len(list))
		}

		deploys := kube.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
		if _, err := s.Create(deploys, map[string]any{"metadata": map[string]any{"name": "d"}, "spec": map[string]any{"replicas": 1,
			"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}}}}); err != nil {
			t.Fatal(err)
		}
		st, err := s.UpdateStatus(deploys, map[string]any{"metadata": map[string]any{"name": "d"}, "status": map[string]any{"readyReplicas": 1}})
		if err != nil || field(st, "status.readyReplicas") != int64(1) {
			t.Errorf("UpdateStatus = %v, %v", st, err)
		}
		if _, err := s.UpdateStatus(gvrConfigMaps, got); err == nil {
			t.Error("UpdateStatus of a configmap succeeded")
		}

		if err := s.Delete(gvrConfigMaps, "default", "typed"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(gvrConfigMaps, "default", "typed"); !kube.IsNotFound(err) {
			t.Errorf("Get after Delete: %v, want NotFound", err)
		}
		if err := s.Delete(gvrConfigMaps, "default", "typed"); !kube.IsNotFound(err) {
			t.Errorf("second Delete: %v, want NotFound", err)
		}
		if _, err := s.Get(kube.GroupVersionResource{Version: "v1", Resource: "widgets"}, "", "x"); err == nil {
			t.Error("Get of an unknown resource succeeded")
		}
		if ns, err := s.Get(kube.GroupVersionResource{Version: "v1", Resource: "namespaces"}, "ignored", "default"); err != nil || ns["kind"] != "Namespace" {
			t.Errorf("Get(namespace default) = %v, %v", ns, err)
		}
		var got2 []string
		lines, _ := w.pending()
		for _, l := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			got2 = append(got2, fmt.Sprint(m["type"], " ", field(m, "object.metadata.name")))
		}
		if want := []string{"ADDED raw", "MODIFIED typed", "DELETED typed"}; !slices.Equal(got2, want) {
			t.Errorf("watch saw %q, want %q", got2, want)
		}
	})
}
