// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// testAdmissionWebhooks registers a mutating and a validating webhook,
// served by manager/webhook on loopback, for the ConfigMaps of the
// fixture's namespace, and checks what the server does with their
// answers: the patch applied (before validation), the denial's text,
// warnings, the review's fields, a webhook that cannot be reached,
// DELETE, and dry runs.
func testAdmissionWebhooks(t *testing.T, f *fixture) {
	hooks := startAdmissionWebhooks(t)
	name := "kubeloop-scenario-" + f.ns
	onlyHere := map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": f.ns}}
	hook := func(hookName, path string, ops []any, extra map[string]any) map[string]any {
		w := map[string]any{
			"name":                    hookName,
			"clientConfig":            map[string]any{"url": hooks.url + path, "caBundle": hooks.caBundle},
			"rules":                   []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": ops, "resources": []any{"configmaps"}}},
			"admissionReviewVersions": []any{"v1"}, "sideEffects": "NoneOnDryRun", "failurePolicy": "Fail",
			"namespaceSelector": onlyHere,
		}
		for k, v := range extra {
			w[k] = v
		}
		return w
	}
	labelled := func(k, v string) map[string]any {
		return map[string]any{"objectSelector": map[string]any{"matchLabels": map[string]any{k: v}}}
	}
	refused := hook("refused.kubeloop.test", "", []any{"CREATE"}, labelled("case", "refused"))
	refused["clientConfig"] = map[string]any{"url": "https://127.0.0.1:1/refused"}
	ignored := hook("ignored.kubeloop.test", "", []any{"CREATE"}, labelled("case", "ignored"))
	ignored["clientConfig"], ignored["failurePolicy"] = map[string]any{"url": "https://127.0.0.1:1/ignored"}, "Ignore"
	configs := []*kube.Unstructured{
		webhookConfig("MutatingWebhookConfiguration", name, hook("mutate.kubeloop.test", "/mutate", []any{"CREATE", "UPDATE"}, nil)),
		webhookConfig("ValidatingWebhookConfiguration", name,
			hook("validate.kubeloop.test", "/validate", []any{"CREATE", "UPDATE", "DELETE"}, nil), refused, ignored),
	}
	for _, c := range configs {
		f.mustCreate(t, c)
		t.Cleanup(func() { _ = f.c.Delete(context.Background(), c) })
	}
	// A real server takes a moment to load new configurations.
	f.eventually(t, "the mutating webhook to be called", func() error {
		cm := f.configMap("probe-"+randomSuffix(), nil, nil)
		if err := f.c.Create(f.ctx, cm); err != nil {
			return err
		}
		if cm.Labels["mutated"] != "yes" {
			return errors.New("created without the webhook's label")
		}
		return nil
	})

	var warnings []string
	cm := f.configMap("admitted", nil, map[string]string{"color": "blue"})
	if err := f.c.Create(f.ctx, cm, kube.WriteOptions{Warnings: &warnings, FieldManager: "scenario"}); err != nil {
		t.Fatalf("create of a blue ConfigMap: %v", err)
	}
	if cm.Labels["mutated"] != "yes" {
		t.Errorf("created ConfigMap's labels = %v, want the mutating webhook's mutated=yes", cm.Labels)
	}
	if got := strings.Join(warnings, "|"); got != "mutated|validated" {
		t.Errorf("create warnings = %q, want the webhooks' mutated|validated", got)
	}
	hooks.checkReview(t, "/mutate", "admitted", `{"apiVersion":"meta.k8s.io/v1","fieldManager":"scenario","kind":"CreateOptions"}`, false)
	hooks.checkReview(t, "/validate", "admitted", `{"apiVersion":"meta.k8s.io/v1","fieldManager":"scenario","kind":"CreateOptions"}`, true)

	// Mutating webhooks come before validation: one may mend a label
	// value the server refuses.
	mend := f.configMap("mend", map[string]string{"mend": "not valid!"}, nil)
	if err := f.c.Create(f.ctx, mend); err != nil || mend.Labels["mend"] != "mended" {
		t.Errorf("create with a label the webhook mends = %v, labels %v; want it mended", err, mend.Labels)
	}

	const deniedRed = `admission webhook "validate.kubeloop.test" denied the request: data.color: "red" is reserved`
	red := f.configMap("red", nil, map[string]string{"color": "red"})
	for _, dry := range []bool{false, true} {
		err := f.c.Create(f.ctx, red, kube.WriteOptions{DryRun: dry})
		if !kube.IsForbidden(err) || statusMessage(err) != deniedRed {
			t.Errorf("create of a red ConfigMap (dry run %v) = %v, want Forbidden %q", dry, err, deniedRed)
		}
	}
	cm.Data["color"] = "red"
	if err := f.c.Update(f.ctx, cm); statusMessage(err) != deniedRed {
		t.Errorf("update to red = %v, want %q", err, deniedRed)
	}
	if err := f.c.Patch(f.ctx, cm, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"color":"red"}}`)}); statusMessage(err) != deniedRed {
		t.Errorf("patch to red = %v, want %q", err, deniedRed)
	}

	const deniedKeep = `admission webhook "validate.kubeloop.test" denied the request: this ConfigMap is kept`
	kept := f.configMap("kept", map[string]string{"keep": "yes"}, nil)
	f.mustCreate(t, kept)
	if err := f.c.Delete(f.ctx, kept); !kube.IsForbidden(err) || statusMessage(err) != deniedKeep {
		t.Errorf("delete of a kept ConfigMap = %v, want Forbidden %q", err, deniedKeep)
	}
	if r := hooks.last("/validate"); r.Operation != "DELETE" || len(r.OldObject) == 0 || (len(r.Object) != 0 && string(r.Object) != "null") {
		t.Errorf("DELETE review: operation %s, object %s, oldObject of %d bytes; want DELETE with only the oldObject", r.Operation, r.Object, len(r.OldObject))
	}

	const unreachable = `Internal error occurred: failed calling webhook "refused.kubeloop.test": failed to call webhook: Post "https://127.0.0.1:1/refused?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused`
	err := f.c.Create(f.ctx, f.configMap("refused", map[string]string{"case": "refused"}, nil))
	var se *kube.StatusError
	if !errors.As(err, &se) || se.Status.Code != 500 || se.Status.Reason != kube.ReasonInternalError || se.Status.Message != unreachable {
		t.Errorf("create through an unreachable webhook = %v, want 500 InternalError %q", err, unreachable)
	}
	if err := f.c.Create(f.ctx, f.configMap("ignored", map[string]string{"case": "ignored"}, nil)); err != nil {
		t.Errorf("create through an unreachable webhook with failurePolicy Ignore = %v, want it admitted", err)
	}
}

func webhookConfig(kind, name string, hooks ...map[string]any) *kube.Unstructured {
	list := make([]any, len(hooks))
	for i, h := range hooks {
		list[i] = h
	}
	return &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: kind},
		ObjectMeta: kube.ObjectMeta{Name: name}, Content: map[string]any{"webhooks": list}}
}

// statusMessage is the message of the server's Status in err, "" when err
// is not one.
func statusMessage(err error) string {
	var se *kube.StatusError
	if !errors.As(err, &se) {
		return ""
	}
	return se.Status.Message
}

// admissionWebhooks is a webhook server on loopback: /mutate labels
// ConfigMaps mutated=yes, /validate refuses red ones and the deletion of
// kept ones; both warn, and keep the requests they are sent.
type admissionWebhooks struct {
	url, caBundle string
	mu            sync.Mutex
	sent          map[string][]webhook.AdmissionRequest
}

func startAdmissionWebhooks(t *testing.T) *admissionWebhooks {
	t.Helper()
	h := &admissionWebhooks{sent: map[string][]webhook.AdmissionRequest{}}
	srv := startWebhookServer(t, map[string]webhook.AdmitFunc{
		"/mutate": h.keep("/mutate", mutateConfigMap), "/validate": h.keep("/validate", validateConfigMap)})
	h.url, h.caBundle = srv.url, srv.caBundle
	return h
}

func (h *admissionWebhooks) keep(path string, fn webhook.AdmitFunc) webhook.AdmitFunc {
	return func(ctx context.Context, req *webhook.AdmissionRequest) webhook.AdmissionResponse {
		kept := *req
		kept.Object = append(json.RawMessage(nil), req.Object...)
		kept.OldObject = append(json.RawMessage(nil), req.OldObject...)
		kept.Options = append(json.RawMessage(nil), req.Options...)
		h.mu.Lock()
		h.sent[path] = append(h.sent[path], kept)
		h.mu.Unlock()
		return fn(ctx, req)
	}
}

func (h *admissionWebhooks) last(path string) webhook.AdmissionRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.sent[path]
	if len(l) == 0 {
		return webhook.AdmissionRequest{}
	}
	return l[len(l)-1]
}

// checkReview checks the review of the create of name that path was last
// sent, as kube-apiserver 1.36 sends it: a mutating webhook's object has
// no uid yet, a validating webhook's has the one it is stored with.
func (h *admissionWebhooks) checkReview(t *testing.T, path, name, options string, validating bool) {
	t.Helper()
	r := h.last(path)
	var o struct {
		Metadata struct {
			Name          string          `json:"name"`
			UID           string          `json:"uid"`
			ManagedFields json.RawMessage `json:"managedFields"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(r.Object, &o)
	var opts map[string]any
	_ = json.Unmarshal(r.Options, &opts)
	gotOpts, _ := json.Marshal(opts)
	switch {
	case r.Operation != "CREATE" || r.Name != name || r.Kind.Kind != "ConfigMap" || r.Resource.Resource != "configmaps":
		t.Errorf("%s review: %s %s %s %s, want CREATE of ConfigMap (configmaps) %s", path, r.Operation, r.Kind.Kind, r.Resource.Resource, r.Name, name)
	case r.RequestKind == nil || r.RequestKind.Kind != "ConfigMap" || r.DryRun == nil || *r.DryRun:
		t.Errorf("%s review: requestKind %v dryRun %v, want ConfigMap, false", path, r.RequestKind, r.DryRun)
	case r.UserInfo.Username == "" || len(r.UserInfo.Groups) == 0:
		t.Errorf("%s review: userInfo %+v, want the user and groups", path, r.UserInfo)
	case string(gotOpts) != options:
		t.Errorf("%s review: options %s, want %s", path, gotOpts, options)
	case (o.Metadata.UID != "") != validating:
		t.Errorf("%s review: object's uid %q; want one only for a validating webhook", path, o.Metadata.UID)
	case len(o.Metadata.ManagedFields) == 0:
		t.Errorf("%s review: object without managedFields, want those of the client's write", path)
	}
}

func mutateConfigMap(_ context.Context, req *webhook.AdmissionRequest) webhook.AdmissionResponse {
	var cm kube.ConfigMap
	if err := json.Unmarshal(req.Object, &cm); err != nil {
		return webhook.Errored(400, err)
	}
	op := `{"op":"add","path":"/metadata/labels/mutated","value":"yes"}`
	if cm.Labels == nil {
		op = `{"op":"add","path":"/metadata/labels","value":{"mutated":"yes"}}`
	}
	if cm.Labels["mend"] != "" {
		op += `,{"op":"replace","path":"/metadata/labels/mend","value":"mended"}`
	}
	return webhook.AdmissionResponse{Allowed: true, Patch: []byte("[" + op + "]"), PatchType: "JSONPatch", Warnings: []string{"mutated"}}
}

func validateConfigMap(_ context.Context, req *webhook.AdmissionRequest) webhook.AdmissionResponse {
	var cm kube.ConfigMap
	raw := req.Object
	if req.Operation == "DELETE" {
		raw = req.OldObject
	}
	if err := json.Unmarshal(raw, &cm); err != nil {
		return webhook.Errored(400, err)
	}
	switch {
	case req.Operation == "DELETE" && cm.Labels["keep"] == "yes":
		return webhook.Denied(errors.New("this ConfigMap is kept"), nil)
	case req.Operation != "DELETE" && cm.Data["color"] == "red":
		return webhook.Denied(errors.New(`data.color: "red" is reserved`), nil)
	}
	return webhook.Allowed([]string{"validated"})
}

// testAdmissionWebhookOrder registers mutating webhooks in two
// configurations, created in the opposite of their names' order: the
// server calls them by configuration name, then in their order within
// it, and calls again the one with reinvocationPolicy IfNeeded that ran
// before another's change. A configuration with sideEffects v1 does not
// accept is refused with the real server's message.
func testAdmissionWebhookOrder(t *testing.T, f *fixture) {
	var mu sync.Mutex
	var order []string
	labeller := func(name, label string) webhook.AdmitFunc {
		return func(_ context.Context, req *webhook.AdmissionRequest) webhook.AdmissionResponse {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			if label == "" {
				return webhook.Allowed(nil)
			}
			var cm kube.ConfigMap
			_ = json.Unmarshal(req.Object, &cm)
			op := `{"op":"add","path":"/metadata/labels/` + label + `","value":"yes"}`
			if cm.Labels == nil {
				op = `{"op":"add","path":"/metadata/labels","value":{"` + label + `":"yes"}}`
			}
			return webhook.AdmissionResponse{Allowed: true, Patch: []byte("[" + op + "]"), PatchType: "JSONPatch"}
		}
	}
	srv := startWebhookServer(t, map[string]webhook.AdmitFunc{
		"/again": labeller("again", ""), "/a": labeller("a", "a"), "/b": labeller("b", "b")})
	onlyHere := map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": f.ns}}
	hook := func(name, path string) map[string]any {
		return map[string]any{
			"name": name, "clientConfig": map[string]any{"url": srv.url + path, "caBundle": srv.caBundle},
			"rules":                   []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"configmaps"}}},
			"admissionReviewVersions": []any{"v1"}, "sideEffects": "None", "namespaceSelector": onlyHere,
		}
	}
	again := hook("again.kubeloop.test", "/again")
	again["reinvocationPolicy"] = "IfNeeded"
	name := "kubeloop-order-" + f.ns
	for _, c := range []*kube.Unstructured{
		webhookConfig("MutatingWebhookConfiguration", name+"-2", hook("b.kubeloop.test", "/b")),
		webhookConfig("MutatingWebhookConfiguration", name+"-1", again, hook("a.kubeloop.test", "/a")),
	} {
		f.mustCreate(t, c)
		t.Cleanup(func() { _ = f.c.Delete(context.Background(), c) })
	}
	f.eventually(t, "both configurations to be called", func() error {
		mu.Lock()
		order = nil
		mu.Unlock()
		cm := f.configMap("probe-"+randomSuffix(), nil, nil)
		if err := f.c.Create(f.ctx, cm); err != nil {
			return err
		}
		if cm.Labels["a"] != "yes" || cm.Labels["b"] != "yes" {
			return errors.New("created without both webhooks' labels")
		}
		return nil
	})
	mu.Lock()
	got := strings.Join(order, ",")
	mu.Unlock()
	if got != "again,a,b,again" {
		t.Errorf("mutating webhooks called in order %s, want again,a,b,again", got)
	}

	bad := hook("bad.kubeloop.test", "/a")
	bad["sideEffects"] = "Some"
	err := f.c.Create(f.ctx, webhookConfig("MutatingWebhookConfiguration", name+"-bad", bad))
	want := `MutatingWebhookConfiguration.admissionregistration.k8s.io "` + name + `-bad" is invalid: webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`
	if !kube.IsInvalid(err) || statusMessage(err) != want {
		t.Errorf("create of a configuration with sideEffects Some = %v, want Invalid %q", err, want)
	}
}

// webhookServer is a manager/webhook server on loopback for a scenario.
type webhookServer struct{ url, caBundle string }

// startWebhookServer serves admission handlers (by path) until the test
// ends.
func startWebhookServer(t *testing.T, handlers map[string]webhook.AdmitFunc) webhookServer {
	t.Helper()
	hs := make(map[string]http.Handler, len(handlers))
	for path, fn := range handlers {
		hs[path] = webhook.Admission(fn)
	}
	url, caBundle := ServeTLS(t, hs)
	return webhookServer{url: url, caBundle: caBundle}
}

// ServeTLS serves handlers (by path) on a webhook server over TLS on
// loopback until the test ends, and returns its base URL and the CA
// bundle (base64 PEM, as a webhook's caBundle) that verifies it. The
// integration tests' webhooks use it too.
func ServeTLS(t *testing.T, handlers map[string]http.Handler) (url, caBundle string) {
	t.Helper()
	dir := t.TempDir()
	ca, err := kubetest.NewCA("kubeloop scenario CA")
	if err != nil {
		t.Fatal(err)
	}
	if err := ca.WriteServing(dir, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	srv, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for path, h := range handlers {
		srv.Register(path, h)
	}
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("webhook server: %v", err)
		}
	})
	return "https://" + srv.Addr().String(), base64.StdEncoding.EncodeToString(ca.CertPEM)
}
