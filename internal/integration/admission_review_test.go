// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// TestAdmissionReviewsAgree makes the same writes on the real
// kube-apiserver and on kubetest (acting as the server's minor), with the same mutating and validating
// webhook registered on each, and compares the AdmissionReview requests
// the two send, once uids, times, resourceVersions and the namespace's
// name are masked: kubetest must send what the real server sends. The
// mutating webhook adds a label, so the validating webhook's reviews and
// the stored object show where its patch went (and that managedFields
// leave it unmanaged).
func TestAdmissionReviewsAgree(t *testing.T) {
	real, ctx := adminClient(t)
	fake := kubetest.New(kubetest.Options{Tokens: map[string]string{"admin-token": "admin"}, UIDs: map[string]string{"admin": "1"},
		Minor: kubetestMinorOf(t, harnessFromEnv(t))}) // the server's minor, as TestKubectl
	t.Cleanup(fake.Close)
	fakeClient, err := kube.NewClient(fake.ConfigFor("admin"), kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	realSent := reviewsOf(ctx, t, real)
	fakeSent := reviewsOf(ctx, t, fakeClient)
	if len(realSent) != len(fakeSent) {
		t.Errorf("the real server sent %d reviews, kubetest %d:\nreal:\n%s\nkubetest:\n%s", len(realSent), len(fakeSent),
			strings.Join(realSent, "\n"), strings.Join(fakeSent, "\n"))
		return
	}
	t.Logf("%d reviews agree; the last: %.300s", len(realSent), realSent[len(realSent)-2])
	for i := range realSent {
		if realSent[i] != fakeSent[i] {
			t.Errorf("review %d differs:\nreal:     %s\nkubetest: %s", i, realSent[i], fakeSent[i])
		}
	}
}

// reviewsOf registers the webhooks with the server c reaches, makes the
// writes (and an eviction), and returns the masked reviews in the order they were sent
// (the validating webhook's after the mutating one's of each write).
func reviewsOf(ctx context.Context, t *testing.T, c *kube.Client) []string {
	t.Helper()
	var mu sync.Mutex
	var sent []string
	record := func(path string) webhook.AdmitFunc {
		return func(_ context.Context, req *webhook.AdmissionRequest) webhook.AdmissionResponse {
			raw, _ := json.Marshal(req)
			mu.Lock()
			sent = append(sent, path+" "+string(raw))
			mu.Unlock()
			if path != "mutating" || req.Operation == "DELETE" {
				return webhook.Allowed(nil)
			}
			// The mutating webhook labels what it sees: the validating
			// one and the stored object show where its patch went.
			var o kube.ConfigMap
			_ = json.Unmarshal(req.Object, &o)
			op := `{"op":"add","path":"/metadata/labels/mutated","value":"yes"}`
			if o.Labels == nil {
				op = `{"op":"add","path":"/metadata/labels","value":{"mutated":"yes"}}`
			}
			return webhook.AdmissionResponse{Allowed: true, Patch: []byte("[" + op + "]"), PatchType: "JSONPatch"}
		}
	}
	url, caBundle := startWebhooks(t, map[string]http.Handler{
		"/m": webhook.Admission(record("mutating")), "/v": webhook.Admission(record("validating")),
	})
	ns := "reviews-" + randomName()
	if err := c.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Delete(context.Background(), &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}) })
	rule := map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"*"}, "resources": []any{"configmaps"}}
	for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		path := map[string]string{"MutatingWebhookConfiguration": "/m", "ValidatingWebhookConfiguration": "/v"}[kind]
		cfg := webhookConfiguration(kind, ns, url+path, caBundle, rule)
		w := cfg.Content["webhooks"].([]any)[0].(map[string]any)
		w["namespaceSelector"] = map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": ns}}
		w["rules"] = append(w["rules"].([]any), map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"},
			"operations": []any{"CREATE"}, "resources": []any{"pods/eviction"}})
		if err := c.Create(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Delete(context.Background(), cfg) })
	}
	// A real server takes a moment to load new configurations.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		probe := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, GenerateName: "probe-"}}
		if err := c.Create(ctx, probe, kube.DryRunAll); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		n := len(sent)
		mu.Unlock()
		if n >= 2 || time.Now().After(deadline) {
			break
		}
	}
	mu.Lock()
	sent = nil
	mu.Unlock()

	a := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "a", Labels: map[string]string{"x": "1"}}, Data: map[string]string{"k": "v"}}
	steps := []func() error{
		func() error { return c.Create(ctx, a, kube.WriteOptions{FieldManager: "creator"}) },
		func() error { a.Data["k"] = "w"; return c.Update(ctx, a) },
		func() error {
			return c.Patch(ctx, a, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"p":"q"}}`)}, kube.WriteOptions{FieldValidation: kube.FieldValidationStrict})
		},
		func() error {
			b := &kube.ConfigMap{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "b"}, Data: map[string]string{"k": "v"}}
			return c.Apply(ctx, b, kube.FieldOwner("applier"), kube.ForceOwnership)
		},
		func() error {
			b := &kube.ConfigMap{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "b"}, Data: map[string]string{"k": "w"}}
			return c.Apply(ctx, b, kube.FieldOwner("applier"), kube.ForceOwnership)
		},
		func() error {
			return c.Create(ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "c"}}, kube.DryRunAll)
		},
		func() error { return c.Delete(ctx, a, kube.PropagationBackground) },
		func() error {
			p := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "p"},
				Content: map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}}}
			if err := c.Create(ctx, p); err != nil {
				return err
			}
			return c.SubResource("eviction").Create(ctx, p, &kube.Eviction{})
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	b := &kube.ConfigMap{}
	if err := c.Get(ctx, kube.Key{Namespace: ns, Name: "b"}, b); err != nil {
		t.Fatal(err)
	}
	stored, _ := json.Marshal(b)
	mu.Lock()
	defer mu.Unlock()
	sent = append(sent, "stored "+string(stored))
	out := make([]string, len(sent))
	for i, s := range sent {
		out[i] = maskReview(s, ns)
	}
	return out
}

var (
	maskUID     = regexp.MustCompile(`"uid":"[0-9a-f-]{36}"`)
	maskTime    = regexp.MustCompile(`"(time|creationTimestamp)":"[^"]*"`)
	maskVersion = regexp.MustCompile(`"resourceVersion":"[0-9]+"`)
)

// maskReview hides what differs between any two servers in a review,
// and sorts nothing: order of keys is encoding/json's (sorted maps).
func maskReview(s, ns string) string {
	s = maskUID.ReplaceAllString(s, `"uid":"UID"`)
	s = maskTime.ReplaceAllString(s, `"$1":"TIME"`)
	s = maskVersion.ReplaceAllString(s, `"resourceVersion":"RV"`)
	s = strings.ReplaceAll(s, ns, "NS")
	var v any
	if json.Unmarshal([]byte(s[strings.IndexByte(s, ' ')+1:]), &v) == nil {
		b, _ := json.Marshal(v) // objects' keys sorted
		s = s[:strings.IndexByte(s, ' ')+1] + string(b)
	}
	return s
}
