// SPDX-License-Identifier: Apache-2.0

package kubetest_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestWebhookScaleRefused: kubetest sends no Scale to webhooks, so a
// write to scale that a webhook matches is refused, naming the webhook,
// rather than admitted without it.
func TestWebhookScaleRefused(t *testing.T) {
	h := newHookServer(t, map[string]answerFunc{"/v": allow()})
	s, c, ctx := admissionClient(t, kubetest.Options{})
	deployments := kube.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	if _, err := s.Create(deployments, map[string]any{
		"metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx"}}}}},
	}); err != nil {
		t.Fatal(err)
	}
	scale := h.hook("scale.kubeloop.test", "/v", nil)
	scale["rules"] = []any{map[string]any{"apiGroups": []any{"apps"}, "apiVersions": []any{"v1"}, "operations": []any{"UPDATE"}, "resources": []any{"deployments/scale"}}}
	mustCreate(t, c, ctx, configuration("ValidatingWebhookConfiguration", "scale", scale))
	req, _ := http.NewRequest(http.MethodPatch, "https://kubetest.invalid/apis/apps/v1/namespaces/default/deployments/web/scale",
		strings.NewReader(`{"spec":{"replicas":3}}`))
	req.Header.Set("Content-Type", "application/merge-patch+json")
	resp, err := (&http.Client{Transport: s.Transport()}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(body), `kubetest does not call admission webhooks for deployments/scale: webhook \"scale.kubeloop.test\" matches`) {
		t.Errorf("PATCH of scale with a matching webhook = %d %s, want 500 naming the webhook", resp.StatusCode, body)
	}
}

// TestWebhookService: a webhook named by a service is called at the
// address Options.WebhookServices gives, with its certificate checked for
// NAME.NAMESPACE.svc as the real server checks it, and sent the
// AdmissionReview version it accepts (v1beta1 here); without a resolver
// the call fails as one to a Service without endpoints.
func TestWebhookService(t *testing.T) {
	ca, err := kubetest.NewCA("service test CA")
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.Issue("hooks.system.svc", "hooks.system.svc")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	var mu sync.Mutex
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rev map[string]any
		json.NewDecoder(r.Body).Decode(&rev)
		mu.Lock()
		paths = append(paths, fmt.Sprint(r.Host, r.URL.RequestURI(), " ", rev["apiVersion"]))
		mu.Unlock()
		uid := rev["request"].(map[string]any)["uid"]
		json.NewEncoder(w).Encode(map[string]any{"apiVersion": rev["apiVersion"], "kind": "AdmissionReview",
			"response": map[string]any{"uid": uid, "allowed": false, "status": map[string]any{"message": "seen", "code": 403}}})
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)

	hook := map[string]any{
		"name": "svc.kubeloop.test",
		"clientConfig": map[string]any{"caBundle": base64.StdEncoding.EncodeToString(ca.CertPEM),
			"service": map[string]any{"namespace": "system", "name": "hooks", "path": "/check", "port": 8443}},
		"rules": []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"},
			"resources": []any{"configmaps"}}},
		"admissionReviewVersions": []any{"v1beta1"}, "sideEffects": "None",
	}
	resolved := func(namespace, name string, port int32) (string, error) {
		if namespace != "system" || name != "hooks" || port != 8443 {
			return "", errors.New("no such service")
		}
		return srv.Listener.Addr().String(), nil
	}
	for _, tc := range []struct {
		what    string
		resolve func(string, string, int32) (string, error)
		want    string
	}{
		{"resolved", resolved, `admission webhook "svc.kubeloop.test" denied the request: seen`},
		{"no resolver", nil, `Internal error occurred: failed calling webhook "svc.kubeloop.test": failed to call webhook: Post "https://hooks.system.svc:8443/check?timeout=10s": no endpoints available for service "hooks"`},
	} {
		_, c, ctx := admissionClient(t, kubetest.Options{WebhookServices: tc.resolve})
		mustCreate(t, c, ctx, configuration("ValidatingWebhookConfiguration", "svc", hook))
		err := c.Create(ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "x"}})
		if got := statusOf(t, err).Message; !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: create = %q, want %q", tc.what, got, tc.want)
		}
	}
	if want := "hooks.system.svc:8443/check?timeout=10s admission.k8s.io/v1beta1"; len(paths) != 1 || paths[0] != want {
		t.Errorf("the service was called with %q, want once with %q (the review version it accepts)", paths, want)
	}
}

// TestWebhookCallsServer: a webhook may read from the server while it
// decides (no lock is held during the call), and a dry run's review says
// so and stores nothing whatever the webhooks did.
func TestWebhookCallsServer(t *testing.T) {
	var mu sync.Mutex // guards s and listed, shared with the webhook
	var s *kubetest.Server
	var listed []int
	h := newHookServer(t, map[string]answerFunc{
		"/m": func(req map[string]any) map[string]any {
			var list kube.List[kube.ConfigMap]
			mu.Lock()
			c, _ := s.Client(kube.ClientOptions{})
			mu.Unlock()
			if err := c.List(context.Background(), &list, kube.InNamespace("default")); err == nil {
				mu.Lock()
				listed = append(listed, len(list.Items))
				mu.Unlock()
			}
			return patchOf(`[{"op":"add","path":"/data","value":{"from":"webhook"}}]`)(req)
		},
	})
	mu.Lock()
	s, c, ctx := admissionClient(t, kubetest.Options{})
	mu.Unlock()
	mustCreate(t, c, ctx, configuration("MutatingWebhookConfiguration", "m", h.hook("m.kubeloop.test", "/m", nil)))
	dry := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "dry"}}
	if err := c.Create(ctx, dry, kube.DryRunAll); err != nil {
		t.Fatal(err)
	}
	if dry.Data["from"] != "webhook" {
		t.Errorf("dry-run create answered data %v, want the webhook's", dry.Data)
	}
	if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "dry"}, dry); !kube.IsNotFound(err) {
		t.Errorf("get after a dry-run create = %v, want NotFound", err)
	}
	if got := h.sent("/m"); len(got) != 1 || got[0]["dryRun"] != true {
		t.Errorf("dry-run reviews = %v, want one with dryRun true", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(listed) != 1 {
		t.Errorf("the webhook's list of the server while called: %d answers, want 1", len(listed))
	}
}

// TestWebhookDeleteCollection: DELETE of a collection sends each item's
// DELETE to the webhooks; an item they refuse stays, the others go, and
// the request fails with the refusal.
func TestWebhookDeleteCollection(t *testing.T) {
	h := newHookServer(t, map[string]answerFunc{"/v": func(req map[string]any) map[string]any {
		if req["name"] == "kept" {
			return map[string]any{"allowed": false, "status": map[string]any{"message": "kept", "code": 403}}
		}
		return map[string]any{"allowed": true}
	}})
	_, c, ctx := admissionClient(t, kubetest.Options{})
	for _, n := range []string{"a", "kept", "b"} {
		mustCreate(t, c, ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: n, Labels: map[string]string{"set": "x"}}})
	}
	del := h.hook("del.kubeloop.test", "/v", nil)
	del["rules"].([]any)[0].(map[string]any)["operations"] = []any{"DELETE"}
	mustCreate(t, c, ctx, configuration("ValidatingWebhookConfiguration", "del", del))
	err := c.DeleteAllOf(ctx, kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, kube.InNamespace("default"), kube.MatchingLabels{"set": "x"})
	if want := `admission webhook "del.kubeloop.test" denied the request: kept`; statusOf(t, err).Message != want {
		t.Errorf("delete of the collection = %v, want %q", err, want)
	}
	var list kube.List[kube.ConfigMap]
	if err := c.List(ctx, &list, kube.InNamespace("default"), kube.MatchingLabels{"set": "x"}); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "kept" {
		t.Errorf("left after the delete: %d ConfigMaps, want only the one refused", len(list.Items))
	}
	if got := len(h.sent("/v")); got != 3 {
		t.Errorf("the webhook got %d reviews, want one per item (3)", got)
	}
}

// TestWebhookEviction: an eviction is a CREATE of pods/eviction whose
// object is the Eviction; a webhook that refuses it keeps the pod.
func TestWebhookEviction(t *testing.T) {
	h := newHookServer(t, map[string]answerFunc{"/v": deny("not now", 429)})
	s, c, ctx := admissionClient(t, kubetest.Options{})
	pods := kube.GroupVersionResource{Version: "v1", Resource: "pods"}
	if _, err := s.Create(pods, map[string]any{"metadata": map[string]any{"name": "p", "namespace": "default"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}}); err != nil {
		t.Fatal(err)
	}
	ev := h.hook("evict.kubeloop.test", "/v", nil)
	ev["rules"] = []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"pods/eviction"}}}
	mustCreate(t, c, ctx, configuration("ValidatingWebhookConfiguration", "evict", ev))
	p := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "p"}}
	err := c.SubResource("eviction").Create(ctx, p, &kube.Eviction{})
	if st := statusOf(t, err); st.Code != 429 || st.Message != `admission webhook "evict.kubeloop.test" denied the request: not now` {
		t.Errorf("eviction = %d %q, want the webhook's 429 denial", st.Code, st.Message)
	}
	if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "p"}, p); err != nil {
		t.Errorf("get of the pod after a refused eviction = %v, want it kept", err)
	}
	sent := h.sent("/v")
	if len(sent) != 1 || sent[0]["subResource"] != "eviction" || sent[0]["kind"].(map[string]any)["kind"] != "Eviction" {
		t.Errorf("eviction reviews = %v, want one of kind Eviction for pods/eviction", sent)
	}
}

// TestWebhookMendsInvalid: a mutating webhook is called before
// validation, as on the real server, so that it may mend an object the
// server would refuse; the write keeps its managedFields.
func TestWebhookMendsInvalid(t *testing.T) {
	h := newHookServer(t, map[string]answerFunc{"/m": func(req map[string]any) map[string]any {
		labels, _ := req["object"].(map[string]any)["metadata"].(map[string]any)["labels"].(map[string]any)
		if labels["x"] == "not valid!" {
			return patchOf(`[{"op":"replace","path":"/metadata/labels/x","value":"mended"}]`)(req)
		}
		return map[string]any{"allowed": true}
	}})
	_, c, ctx := admissionClient(t, kubetest.Options{})
	mustCreate(t, c, ctx, configuration("MutatingWebhookConfiguration", "mend", h.hook("mend.kubeloop.test", "/m", nil)))
	for _, op := range []string{"create", "update"} {
		cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "m", Labels: map[string]string{"x": "not valid!"}},
			Data: map[string]string{"k": "v"}}
		var err error
		if op == "create" {
			err = c.Create(ctx, cm)
		} else {
			cm.ResourceVersion = ""
			err = c.Update(ctx, cm)
		}
		if err != nil || cm.Labels["x"] != "mended" {
			t.Errorf("%s with a label the webhook mends = %v, labels %v; want it mended", op, err, cm.Labels)
		}
		if len(cm.ManagedFields) == 0 {
			t.Errorf("%s: the object has no managedFields, want the client's", op)
		}
	}
}
