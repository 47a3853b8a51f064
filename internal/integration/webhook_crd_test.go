// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/internal/scenario"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// The mutating and conversion webhooks against the real kube-apiserver:
// the patch of a defaulter that changes thousands of array elements
// applies there, and the API server shows the webhook's refusal of an
// oversized conversion review to its client.

const gizmoGroup = "kubeloop.test"

// gizmoCRD is a fresh CustomResourceDefinition with the versions given
// (the first stored), whose spec keeps any field.
func gizmoCRD(plural, kind string, versions []string, conversion map[string]any) *kube.Unstructured {
	var vs []any
	for i, v := range versions {
		vs = append(vs, map[string]any{
			"name": v, "served": true, "storage": i == 0,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"spec": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
				},
			}},
		})
	}
	spec := map[string]any{
		"group":    gizmoGroup,
		"scope":    "Namespaced",
		"names":    map[string]any{"plural": plural, "singular": strings.ToLower(kind), "kind": kind, "listKind": kind + "List"},
		"versions": vs,
	}
	if conversion != nil {
		spec["conversion"] = conversion
	}
	return &kube.Unstructured{
		TypeMeta:   kube.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: kube.ObjectMeta{Name: plural + "." + gizmoGroup},
		Content:    map[string]any{"spec": spec},
	}
}

// eventually retries fn every 200ms for 30s, until it returns nil.
func eventually(t *testing.T, what string, fn func() error) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if err = fn(); err == nil {
			return
		}
	}
	t.Fatalf("%s: %v", what, err)
}

// startWebhooks serves handlers on a webhook server on loopback until the
// test ends, and returns its base URL and the CA bundle that verifies it
// (scenario.ServeTLS).
func startWebhooks(t *testing.T, handlers map[string]http.Handler) (url, caBundle string) {
	t.Helper()
	return scenario.ServeTLS(t, handlers)
}

// gizmo declares only what its defaulter needs: the items' names and
// protocols. The items the API server sends carry a note besides.
type gizmo struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            struct {
		Items []gizmoItem `json:"items"`
	} `json:"spec"`
}

type gizmoItem struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol,omitempty"`
}

// TestMutatingWebhookLargeArray: a defaulter that sets a field on each of
// 5,000 array elements answers a patch the real API server applies, and
// the elements keep the fields the defaulter's type does not declare.
func TestMutatingWebhookLargeArray(t *testing.T) {
	c, ctx := adminClient(t)
	suffix := randomName()
	plural, kind := "gizmos"+suffix, "Gizmo"+suffix
	crd := gizmoCRD(plural, kind, []string{"v1"}, nil)
	if err := c.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	defer c.Delete(context.Background(), crd)
	gvk := kube.GroupVersionKind{Group: gizmoGroup, Version: "v1", Kind: kind}

	const path = "/mutate-gizmos"
	url, caBundle := startWebhooks(t, map[string]http.Handler{
		path: webhook.MutatingFor[gizmo](webhook.DefaulterFunc[gizmo](func(_ context.Context, g *gizmo) error {
			for i := range g.Spec.Items {
				if g.Spec.Items[i].Protocol == "" {
					g.Spec.Items[i].Protocol = "TCP"
				}
			}
			return nil
		})),
	})
	mwc := webhookConfiguration("MutatingWebhookConfiguration", "kubeloop-integration-"+suffix, url+path, caBundle, map[string]any{
		"apiGroups": []any{gizmoGroup}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"},
		"resources": []any{plural}, "scope": "Namespaced",
	})
	if err := c.Create(ctx, mwc); err != nil {
		t.Fatal(err)
	}
	defer c.Delete(context.Background(), mwc)

	items := make([]any, 5000)
	for i := range items {
		items[i] = map[string]any{"name": fmt.Sprint("item-", i), "note": fmt.Sprint("undeclared-", i)}
	}
	// The CRD and the configuration take a moment to reach the server's
	// handlers and admission chain.
	var got *kube.Unstructured
	eventually(t, "create defaulted by the webhook", func() error {
		g := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "g-" + randomName()}}
		g.SetGroupVersionKind(gvk)
		g.SetField(map[string]any{"items": items}, "spec")
		if err := c.Create(ctx, g); err != nil {
			return err
		}
		defer c.Delete(context.Background(), g)
		out, _ := g.Field("spec", "items")
		if list, _ := out.([]any); len(list) == 0 || list[0].(map[string]any)["protocol"] != "TCP" {
			return fmt.Errorf("created without the webhook's patch")
		}
		got = g
		return nil
	})
	out, _ := got.Field("spec", "items")
	list, _ := out.([]any)
	if len(list) != len(items) {
		t.Fatalf("%d items after the patch, want %d", len(list), len(items))
	}
	for i, e := range list {
		m, _ := e.(map[string]any)
		if m["name"] != fmt.Sprint("item-", i) || m["note"] != fmt.Sprint("undeclared-", i) || m["protocol"] != "TCP" {
			t.Fatalf("item %d after the patch = %v, want its name, its note and protocol TCP", i, e)
		}
	}
}

// TestConversionWebhook: the API server converts objects read in another
// version through the webhook; when a review is larger than the webhook's
// limit, the client sees the webhook's message.
func TestConversionWebhook(t *testing.T) {
	c, ctx := adminClient(t)
	suffix := randomName()
	plural, kind := "gadgets"+suffix, "Gadget"+suffix
	hub := kube.GroupVersionKind{Group: gizmoGroup, Version: "v1", Kind: kind}
	spoke := kube.GroupVersionKind{Group: gizmoGroup, Version: "v2", Kind: kind}

	// v1 has spec.size, v2 spec.count.
	newConversion := func(maxBytes int64) *webhook.Conversion {
		conv := &webhook.Conversion{MaxRequestBytes: maxBytes}
		err := conv.AddUnstructuredSpoke(hub, "v2",
			func(src, dst *kube.Unstructured) error {
				n, _ := src.Field("spec", "count")
				dst.SetField(map[string]any{"size": n}, "spec")
				return nil
			},
			func(src, dst *kube.Unstructured) error {
				n, _ := src.Field("spec", "size")
				dst.SetField(map[string]any{"count": n}, "spec")
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		return conv
	}
	roomy, tight := newConversion(0), newConversion(2048)
	var useTight atomic.Bool
	url, caBundle := startWebhooks(t, map[string]http.Handler{
		webhook.ConversionPath: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if useTight.Load() {
				tight.ServeHTTP(w, r)
				return
			}
			roomy.ServeHTTP(w, r)
		}),
	})
	crd := gizmoCRD(plural, kind, []string{"v1", "v2"}, map[string]any{
		"strategy": "Webhook",
		"webhook": map[string]any{
			"conversionReviewVersions": []any{"v1"},
			"clientConfig":             map[string]any{"url": url + webhook.ConversionPath, "caBundle": caBundle},
		},
	})
	if err := c.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	defer c.Delete(context.Background(), crd)
	ns := "default"
	eventually(t, "CRD served", func() error {
		var list kube.List[kube.Unstructured]
		list.SetGroupVersionKind(kube.GroupVersionKind{Group: gizmoGroup, Version: "v1", Kind: kind + "List"})
		return c.List(ctx, &list, kube.ListOptions{Namespace: ns})
	})
	const n = 20
	for i := range n {
		g := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: fmt.Sprint("g", i)}}
		g.SetGroupVersionKind(hub)
		g.SetField(map[string]any{"size": i}, "spec")
		if err := c.Create(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	listV2 := func() (kube.List[kube.Unstructured], error) {
		var list kube.List[kube.Unstructured]
		list.SetGroupVersionKind(kube.GroupVersionKind{Group: gizmoGroup, Version: "v2", Kind: kind + "List"})
		err := c.List(ctx, &list, kube.ListOptions{Namespace: ns})
		return list, err
	}
	var list kube.List[kube.Unstructured]
	eventually(t, "list in v2", func() (err error) {
		list, err = listV2()
		return err
	})
	if len(list.Items) != n {
		t.Fatalf("%d objects listed in v2, want %d", len(list.Items), n)
	}
	for _, g := range list.Items {
		count, _ := g.Field("spec", "count")
		if g.APIVersion != spoke.APIVersion() || fmt.Sprint(count) != strings.TrimPrefix(g.Name, "g") {
			t.Errorf("%s listed in v2 = %s, spec %v; want %s with spec.count %s", g.Name, g.APIVersion, g.Content["spec"], spoke.APIVersion(), strings.TrimPrefix(g.Name, "g"))
		}
	}

	// The API server converts one object per review (each read from
	// etcd, each watch event), even for a list: an object past the
	// webhook's limit fails the client's get with the webhook's message;
	// the others still convert.
	useTight.Store(true)
	big := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "big"}}
	big.SetGroupVersionKind(hub)
	big.SetField(map[string]any{"size": 7, "filler": strings.Repeat("x", 4096)}, "spec")
	if err := c.Create(ctx, big); err != nil {
		t.Fatal(err)
	}
	g := &kube.Unstructured{}
	g.SetGroupVersionKind(spoke)
	err := c.Get(ctx, kube.Key{Namespace: ns, Name: "big"}, g)
	t.Logf("get past the limit: %v", err)
	if err == nil || !strings.Contains(err.Error(), "larger than the limit of 2048 bytes") {
		t.Errorf("get in v2 of an object past the webhook's limit = %v, want the webhook's refusal", err)
	}
	if err := c.Get(ctx, kube.Key{Namespace: ns, Name: "g3"}, g); err != nil {
		t.Errorf("get in v2 of a small object = %v, want it converted", err)
	} else if count, _ := g.Field("spec", "count"); fmt.Sprint(count) != "3" {
		t.Errorf("get in v2 = spec %v, want count 3", g.Content["spec"])
	}
}
