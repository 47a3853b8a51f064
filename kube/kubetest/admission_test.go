// SPDX-License-Identifier: Apache-2.0

package kubetest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// hookServer is a TLS webhook server for one test: each path answers the
// reviews sent to it with its function's response, and every review is
// kept.
type hookServer struct {
	srv      *httptest.Server
	caBundle string
	mu       sync.Mutex
	reviews  map[string][]map[string]any // by path
}

type answerFunc func(req map[string]any) map[string]any

func newHookServer(t *testing.T, answers map[string]answerFunc) *hookServer {
	h := &hookServer{reviews: map[string][]map[string]any{}}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer := answers[r.URL.Path]
		var rev map[string]any
		body, _ := io.ReadAll(r.Body)
		if answer == nil || json.Unmarshal(body, &rev) != nil {
			http.Error(w, "no such webhook", http.StatusNotFound)
			return
		}
		req, _ := rev["request"].(map[string]any)
		h.mu.Lock()
		h.reviews[r.URL.Path] = append(h.reviews[r.URL.Path], map[string]any{"review": rev, "query": r.URL.RawQuery})
		h.mu.Unlock()
		resp := answer(req)
		if resp == nil {
			return // the handler answered itself (or hangs up)
		}
		if _, ok := resp["uid"]; !ok {
			resp["uid"] = req["uid"]
		}
		out, _ := json.Marshal(map[string]any{"apiVersion": rev["apiVersion"], "kind": "AdmissionReview", "response": resp})
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	t.Cleanup(h.srv.Close)
	h.caBundle = base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw}))
	return h
}

// sent returns the requests of the reviews path was sent.
func (h *hookServer) sent(path string) []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []map[string]any
	for _, r := range h.reviews[path] {
		out = append(out, r["review"].(map[string]any)["request"].(map[string]any))
	}
	return out
}

// hook is a webhook of the configurations these tests make: at path, for
// the configmaps of namespace default whatever the operation.
func (h *hookServer) hook(name, path string, extra map[string]any) map[string]any {
	w := map[string]any{
		"name":         name,
		"clientConfig": map[string]any{"url": h.srv.URL + path, "caBundle": h.caBundle},
		"rules": []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"*"},
			"resources": []any{"configmaps"}}},
		"admissionReviewVersions": []any{"v1"}, "sideEffects": "None",
	}
	for k, v := range extra {
		w[k] = v
	}
	return w
}

func configuration(kind, name string, hooks ...map[string]any) *kube.Unstructured {
	list := make([]any, len(hooks))
	for i, h := range hooks {
		list[i] = h
	}
	return &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: kind},
		ObjectMeta: kube.ObjectMeta{Name: name}, Content: map[string]any{"webhooks": list}}
}

func deny(msg string, code int) answerFunc {
	return func(map[string]any) map[string]any {
		return map[string]any{"allowed": false, "status": map[string]any{"message": msg, "code": code}}
	}
}

func allow(warnings ...any) answerFunc {
	return func(map[string]any) map[string]any { return map[string]any{"allowed": true, "warnings": warnings} }
}

// patchOf answers with a JSON patch.
func patchOf(ops string) answerFunc {
	return func(map[string]any) map[string]any {
		return map[string]any{"allowed": true, "patchType": "JSONPatch", "patch": base64.StdEncoding.EncodeToString([]byte(ops))}
	}
}

func admissionClient(t *testing.T, opts kubetest.Options) (*kubetest.Server, *kube.Client, context.Context) {
	t.Helper()
	s := kubetest.New(opts)
	t.Cleanup(s.Close)
	c, err := s.Client(kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s, c, t.Context()
}

func mustCreate(t *testing.T, c *kube.Client, ctx context.Context, o kube.Object) {
	t.Helper()
	if err := c.Create(ctx, o); err != nil {
		t.Fatalf("create %T: %v", o, err)
	}
}

func statusOf(t *testing.T, err error) kube.Status {
	t.Helper()
	var se *kube.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a StatusError", err)
	}
	return se.Status
}

// TestWebhookDenies: a validating webhook's denial reaches the client as
// the real server words it, and the review carries what the real one
// sends (captured from kube-apiserver 1.36.3).
func TestWebhookDenies(t *testing.T) {
	h := newHookServer(t, map[string]answerFunc{
		"/deny": func(req map[string]any) map[string]any {
			data, _ := req["object"].(map[string]any)["data"].(map[string]any)
			if data["color"] == "red" {
				return map[string]any{"allowed": false, "status": map[string]any{"message": "no red", "code": 403, "reason": "Forbidden"}}
			}
			return map[string]any{"allowed": true}
		},
		"/bare": deny("", 0),
	})
	_, c, ctx := admissionClient(t, kubetest.Options{})
	mustCreate(t, c, ctx, configuration("ValidatingWebhookConfiguration", "colors",
		h.hook("deny.kubeloop.test", "/deny", nil),
		h.hook("bare.kubeloop.test", "/bare", map[string]any{"objectSelector": map[string]any{"matchLabels": map[string]any{"bare": "yes"}}})))

	red := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "red"}, Data: map[string]string{"color": "red"}}
	err := c.Create(ctx, red, kube.WriteOptions{FieldManager: "fm"})
	st := statusOf(t, err)
	if want := `admission webhook "deny.kubeloop.test" denied the request: no red`; st.Message != want || st.Code != 403 || st.Reason != "Forbidden" {
		t.Errorf("create of a red ConfigMap = %d %s %q, want 403 Forbidden %q", st.Code, st.Reason, st.Message, want)
	}
	sent := h.sent("/deny")
	if len(sent) != 1 {
		t.Fatalf("the webhook got %d reviews, want 1", len(sent))
	}
	req := sent[0]
	for k, want := range map[string]string{
		"operation": "CREATE", "name": "red", "namespace": "default",
		"kind":        `{"group":"","kind":"ConfigMap","version":"v1"}`,
		"resource":    `{"group":"","resource":"configmaps","version":"v1"}`,
		"requestKind": `{"group":"","kind":"ConfigMap","version":"v1"}`,
		"userInfo":    `{"groups":["system:masters","system:authenticated"],"username":"admin"}`,
		"options":     `{"apiVersion":"meta.k8s.io/v1","fieldManager":"fm","kind":"CreateOptions"}`,
		"dryRun":      "false", "oldObject": "null",
	} {
		got, _ := json.Marshal(req[k])
		if s := strings.Trim(string(got), `"`); s != want {
			t.Errorf("review request.%s = %s, want %s", k, s, want)
		}
	}
	meta := req["object"].(map[string]any)["metadata"].(map[string]any)
	if meta["uid"] == nil || meta["creationTimestamp"] == nil || meta["managedFields"] == nil {
		t.Errorf("validating review's object metadata = %v, want uid, creationTimestamp and managedFields as stored", meta)
	}
	if q := h.reviews["/deny"][0]["query"]; q != "timeout=10s" {
		t.Errorf("webhook URL query = %q, want timeout=10s", q)
	}
	if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "red"}, red); !kube.IsNotFound(err) {
		t.Errorf("get of the denied ConfigMap = %v, want NotFound", err)
	}

	bare := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "bare", Labels: map[string]string{"bare": "yes"}}}
	st = statusOf(t, c.Create(ctx, bare))
	if want := `admission webhook "bare.kubeloop.test" denied the request without explanation`; st.Message != want || st.Code != 400 {
		t.Errorf("create denied without a message = %d %q, want 400 %q", st.Code, st.Message, want)
	}
	blue := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "blue"}, Data: map[string]string{"color": "blue"}}
	mustCreate(t, c, ctx, blue)
	blue.Data["color"] = "red"
	if err := c.Update(ctx, blue); !strings.Contains(err.Error(), "denied the request: no red") {
		t.Errorf("update to red = %v, want the denial", err)
	}
	if got := h.sent("/deny"); got[len(got)-1]["operation"] != "UPDATE" || got[len(got)-1]["oldObject"] == nil {
		t.Errorf("update review = %v, want operation UPDATE with the oldObject", got[len(got)-1])
	}
	if err := c.Patch(ctx, blue, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"color":"red"}}`)}); err == nil || !strings.Contains(err.Error(), "no red") {
		t.Errorf("patch to red = %v, want the denial", err)
	}
}

// TestMutatingWebhooks: mutating webhooks run in order of their
// configuration's name, each one's patch is applied, the validating ones
// see the result, warnings reach the client, and a webhook with
// reinvocationPolicy IfNeeded runs again after a later change. A warning given twice is sent once, as the real server sends it.
func TestMutatingWebhooks(t *testing.T) {
	var order []string
	var mu sync.Mutex
	note := func(name string, f answerFunc) answerFunc {
		return func(req map[string]any) map[string]any {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			return f(req)
		}
	}
	h := newHookServer(t, map[string]answerFunc{
		"/a":        note("a", patchOf(`[{"op":"add","path":"/metadata/labels","value":{"a":"1"}}]`)),
		"/b":        note("b", patchOf(`[{"op":"add","path":"/data","value":{"b":"2"}}]`)),
		"/again":    note("again", allow("from again")),
		"/validate": allow("from validate"),
	})
	_, c, ctx := admissionClient(t, kubetest.Options{})
	// Configuration names decide the order, not creation order.
	mustCreate(t, c, ctx, configuration("MutatingWebhookConfiguration", "2-second", h.hook("b.kubeloop.test", "/b", nil)))
	mustCreate(t, c, ctx, configuration("MutatingWebhookConfiguration", "1-first",
		h.hook("again.kubeloop.test", "/again", map[string]any{"reinvocationPolicy": "IfNeeded"}),
		h.hook("a.kubeloop.test", "/a", nil)))
	mustCreate(t, c, ctx, configuration("ValidatingWebhookConfiguration", "check", h.hook("v.kubeloop.test", "/validate", nil)))

	var warnings []string
	cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "m"}}
	if err := c.Create(ctx, cm, kube.WriteOptions{Warnings: &warnings}); err != nil {
		t.Fatal(err)
	}
	if cm.Labels["a"] != "1" || cm.Data["b"] != "2" {
		t.Errorf("created ConfigMap labels %v data %v, want the patches of both webhooks", cm.Labels, cm.Data)
	}
	if got := strings.Join(order, ","); got != "again,a,b,again" {
		t.Errorf("mutating webhooks called in order %s, want again,a,b,again", got)
	}
	if got, want := strings.Join(warnings, "|"), "from again|from validate"; got != want {
		t.Errorf("warnings = %q, want %q", got, want)
	}
	mutating := h.sent("/a")[0]["object"].(map[string]any)["metadata"].(map[string]any)
	if mutating["uid"] != nil || mutating["creationTimestamp"] != nil {
		t.Errorf("a mutating webhook's object of a create has uid %v, creationTimestamp %v; want neither, as the real server", mutating["uid"], mutating["creationTimestamp"])
	}
	validated := h.sent("/validate")[0]["object"].(map[string]any)
	if validated["data"] == nil || validated["metadata"].(map[string]any)["uid"] != string(cm.UID) {
		t.Errorf("the validating webhook saw %v, want the mutated object with the stored uid %s", validated, cm.UID)
	}
	// The fields the webhooks set are nobody's: managedFields record only
	// what the client wrote.
	raw, _ := json.Marshal(cm.ManagedFields)
	if strings.Contains(string(raw), `f:a`) || strings.Contains(string(raw), `f:b`) {
		t.Errorf("managedFields = %s, want the webhooks' fields unmanaged", raw)
	}
}

// TestWebhookFailures: a webhook that cannot be called fails the request
// with the real server's error, unless its failurePolicy is Ignore; a
// patch that does not apply and a response for another review fail it
// too.
func TestWebhookFailures(t *testing.T) {
	release := make(chan struct{})
	h := newHookServer(t, map[string]answerFunc{
		"/slow":     func(map[string]any) map[string]any { <-release; return map[string]any{"allowed": true} },
		"/wronguid": func(map[string]any) map[string]any { return map[string]any{"allowed": true, "uid": "nope"} },
		"/badpatch": patchOf(`[{"op":"remove","path":"/nope"}]`),
	})
	defer close(release)
	_, c, ctx := admissionClient(t, kubetest.Options{})
	only := func(name string) map[string]any {
		return map[string]any{"objectSelector": map[string]any{"matchLabels": map[string]any{"case": name}}}
	}
	refused := h.hook("refused.kubeloop.test", "", only("refused"))
	refused["clientConfig"] = map[string]any{"url": "https://127.0.0.1:1/refused"}
	ignored := h.hook("ignored.kubeloop.test", "", only("ignored"))
	ignored["clientConfig"] = map[string]any{"url": "https://127.0.0.1:1/ignored"}
	ignored["failurePolicy"] = "Ignore"
	slow := h.hook("slow.kubeloop.test", "/slow", only("slow"))
	slow["timeoutSeconds"] = 1
	mustCreate(t, c, ctx, configuration("ValidatingWebhookConfiguration", "failing", refused, ignored, slow,
		h.hook("wronguid.kubeloop.test", "/wronguid", only("wronguid"))))
	mustCreate(t, c, ctx, configuration("MutatingWebhookConfiguration", "failing", h.hook("badpatch.kubeloop.test", "/badpatch", only("badpatch"))))

	for _, tc := range []struct{ name, want string }{
		{"refused", `Internal error occurred: failed calling webhook "refused.kubeloop.test": failed to call webhook: Post "https://127.0.0.1:1/refused?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused`},
		{"slow", `Internal error occurred: failed calling webhook "slow.kubeloop.test": failed to call webhook: Post "` + h.srv.URL + `/slow?timeout=1s": context deadline exceeded`},
		{"wronguid", `Internal error occurred: failed calling webhook "wronguid.kubeloop.test": received invalid webhook response: expected response.uid=`},
		{"badpatch", `Internal error occurred: `},
		{"ignored", ``},
	} {
		cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: tc.name, Labels: map[string]string{"case": tc.name}}}
		err := c.Create(ctx, cm)
		if tc.want == "" {
			if err != nil {
				t.Errorf("create past a webhook that fails and is ignored = %v, want it admitted", err)
			}
			continue
		}
		st := statusOf(t, err)
		if !strings.HasPrefix(st.Message, tc.want) || st.Code != 500 || st.Reason != "InternalError" {
			t.Errorf("create through %s = %d %s %q, want 500 InternalError %q", tc.name, st.Code, st.Reason, st.Message, tc.want)
		}
	}
}

// TestWebhookSelection: rules, scope and the selectors decide which
// webhooks a request goes to.
func TestWebhookSelection(t *testing.T) {
	h := newHookServer(t, map[string]answerFunc{"/v": allow()})
	_, c, ctx := admissionClient(t, kubetest.Options{})
	mustCreate(t, c, ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "watched", Labels: map[string]string{"team": "x"}}})
	rule := func(ops, resources []any, scope string) map[string]any {
		return map[string]any{"rules": []any{map[string]any{"apiGroups": []any{"*"}, "apiVersions": []any{"*"},
			"operations": ops, "resources": resources, "scope": scope}}}
	}
	status := h.hook("status.kubeloop.test", "/v", rule([]any{"UPDATE"}, []any{"configmaps/status", "pods/*"}, "*"))
	ns := h.hook("ns.kubeloop.test", "/v", rule([]any{"CREATE"}, []any{"*"}, "Namespaced"))
	ns["namespaceSelector"] = map[string]any{"matchExpressions": []any{map[string]any{"key": "team", "operator": "In", "values": []any{"x"}}}}
	cluster := h.hook("cluster.kubeloop.test", "/v", rule([]any{"CREATE", "DELETE"}, []any{"*"}, "Cluster"))
	cluster["objectSelector"] = map[string]any{"matchLabels": map[string]any{"pick": "me"}}
	mustCreate(t, c, ctx, configuration("ValidatingWebhookConfiguration", "select", status, ns, cluster))

	count := func() int { return len(h.sent("/v")) }
	steps := []struct {
		what string
		do   func() error
		want int // reviews sent
	}{
		{"configmap in a namespace without the label", func() error {
			return c.Create(ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "a"}})
		}, 0},
		{"configmap in the selected namespace", func() error {
			return c.Create(ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "watched", Name: "a"}})
		}, 1},
		{"update of configmaps (not their status)", func() error {
			cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "watched", Name: "a"}}
			if err := c.Get(ctx, kube.Key{Namespace: "watched", Name: "a"}, cm); err != nil {
				return err
			}
			cm.Data = map[string]string{"x": "y"}
			return c.Update(ctx, cm)
		}, 1},
		{"namespace without the object label", func() error {
			return c.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "plain"}})
		}, 1},
		{"namespace with it", func() error {
			return c.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "picked", Labels: map[string]string{"pick": "me"}}})
		}, 2},
		{"delete of it", func() error {
			return c.Delete(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "picked"}})
		}, 3},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.what, err)
		}
		if got := count(); got != st.want {
			t.Errorf("%s: reviews sent so far = %d, want %d", st.what, got, st.want)
		}
	}
	if got := h.sent("/v")[2]; got["operation"] != "DELETE" || got["object"] != nil || got["oldObject"] == nil {
		t.Errorf("delete review = op %v object %v, want DELETE with only the oldObject", got["operation"], got["object"])
	}
}

// TestWebhookConfigurationRefused: kubetest refuses what it would call
// otherwise than the real server: CEL matchConditions, and sideEffects
// that v1 does not accept (with the real server's message).
func TestWebhookConfigurationRefused(t *testing.T) {
	h := newHookServer(t, map[string]answerFunc{"/v": allow()})
	_, c, ctx := admissionClient(t, kubetest.Options{})
	cel := h.hook("cel.kubeloop.test", "/v", map[string]any{"matchConditions": []any{map[string]any{"name": "x", "expression": "true"}}})
	err := c.Create(ctx, configuration("ValidatingWebhookConfiguration", "cel", cel))
	if !kube.IsInvalid(err) || !strings.Contains(err.Error(), "webhooks[0].matchConditions: Forbidden: kubetest cannot evaluate CEL") {
		t.Errorf("create with matchConditions = %v, want Invalid naming webhooks[0].matchConditions", err)
	}
	some := h.hook("some.kubeloop.test", "/v", map[string]any{"sideEffects": "Some"})
	err = c.Create(ctx, configuration("MutatingWebhookConfiguration", "some", some))
	if want := `webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`; !kube.IsInvalid(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("create with sideEffects Some = %v, want Invalid %q", err, want)
	}
}
