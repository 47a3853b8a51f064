// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// whReview is an AdmissionReview request as the API server sends it.
type whReview struct {
	UID, Operation        string
	Kind                  kube.GroupVersionKind
	Resource, SubResource string
	Object, OldObject     string // JSON, empty for none
	User                  string
	DryRun                bool
	Namespace, Name, Path string
}

func (r whReview) JSON() string {
	obj, old := r.Object, r.OldObject
	if obj == "" {
		obj = "null"
	}
	if old == "" {
		old = "null"
	}
	return fmt.Sprintf(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
		"uid":%q,"kind":{"group":%q,"version":%q,"kind":%q},
		"resource":{"group":%q,"version":%q,"resource":%q},"subResource":%q,
		"requestKind":{"group":%q,"version":%q,"kind":%q},"requestSubResource":%q,
		"namespace":%q,"name":%q,"operation":%q,
		"userInfo":{"username":%q,"groups":["system:authenticated"]},
		"object":%s,"oldObject":%s,"dryRun":%v}}`,
		r.UID, r.Kind.Group, r.Kind.Version, r.Kind.Kind,
		r.Kind.Group, r.Kind.Version, r.Resource, r.SubResource,
		r.Kind.Group, r.Kind.Version, r.Kind.Kind, r.SubResource,
		r.Namespace, r.Name, r.Operation, r.User, obj, old, r.DryRun)
}

// whResponse is the response of an answered AdmissionReview.
type whResponse struct {
	UID     string `json:"uid"`
	Allowed bool   `json:"allowed"`
	Status  *struct {
		Code    int32  `json:"code"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"status"`
	Patch     []byte   `json:"patch"`
	PatchType string   `json:"patchType"`
	Warnings  []string `json:"warnings"`
}

// whPostReview posts a review to url and decodes the answer.
func whPostReview(t *testing.T, c *http.Client, url, review string) whResponse {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(review))
	if err != nil {
		t.Fatalf("POST %s error: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out struct {
		APIVersion string      `json:"apiVersion"`
		Kind       string      `json:"kind"`
		Response   *whResponse `json:"response"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(body, &out) != nil || out.Response == nil ||
		out.APIVersion != "admission.k8s.io/v1" || out.Kind != "AdmissionReview" {
		t.Fatalf("POST %s = %d %s, want 200 and a v1 AdmissionReview", url, resp.StatusCode, body)
	}
	return *out.Response
}

func TestWebhookPaths(t *testing.T) {
	tests := []struct {
		gvk              kube.GroupVersionKind
		validate, mutate string
	}{
		{kube.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "/validate-apps-v1-deployment", "/mutate-apps-v1-deployment"},
		{kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, "/validate--v1-configmap", "/mutate--v1-configmap"},
		{kube.GroupVersionKind{Group: "batch.tutorial.kubebuilder.io", Version: "v1", Kind: "CronJob"},
			"/validate-batch-tutorial-kubebuilder-io-v1-cronjob", "/mutate-batch-tutorial-kubebuilder-io-v1-cronjob"},
	}
	for _, tt := range tests {
		if got := webhook.ValidatingPath(tt.gvk); got != tt.validate {
			t.Errorf("ValidatingPath(%v) = %q, want %q", tt.gvk, got, tt.validate)
		}
		if got := webhook.MutatingPath(tt.gvk); got != tt.mutate {
			t.Errorf("MutatingPath(%v) = %q, want %q", tt.gvk, got, tt.mutate)
		}
	}
}

var whConfigMapKind = kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}

func TestWebhookValidator(t *testing.T) {
	pki := newWebhookPKI(t)
	srv, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: pki.Dir})
	if err != nil {
		t.Fatal(err)
	}
	var seen *webhook.AdmissionRequest
	path := webhook.RegisterValidator[kube.ConfigMap](srv, webhook.ValidatorFuncs[kube.ConfigMap]{
		Create: func(ctx context.Context, cm *kube.ConfigMap) (webhook.Warnings, error) {
			seen, _ = webhook.AdmissionRequestFrom(ctx)
			if cm.Data["color"] == "red" {
				return webhook.Warnings{"red is reserved"}, errors.New(`data.color: "red" is reserved`)
			}
			return webhook.Warnings{"checked " + cm.Name}, nil
		},
		Update: func(_ context.Context, oldCM, newCM *kube.ConfigMap) (webhook.Warnings, error) {
			if oldCM.Data["id"] != newCM.Data["id"] {
				return nil, fmt.Errorf("check id: %w", kube.NewStatusError(422, kube.ReasonInvalid, "data.id: field is immutable"))
			}
			return nil, nil
		},
		Delete: func(_ context.Context, cm *kube.ConfigMap) (webhook.Warnings, error) {
			if cm.Labels["protected"] == "true" {
				return nil, errors.New("protected")
			}
			return nil, nil
		},
	})
	if path != "/validate--v1-configmap" {
		t.Errorf("RegisterValidator() = %q, want /validate--v1-configmap", path)
	}
	url := startWebhookServer(t, srv) + path + "?timeout=10s"
	client := pki.Client()

	cm := func(data, labels string) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default","labels":%s},"data":%s}`, labels, data)
	}
	tests := []struct {
		name               string
		review             whReview
		allowed            bool
		wantCode           int32
		wantReason, substr string
		warnings           int
	}{
		{"create allowed", whReview{Operation: "CREATE", Object: cm(`{"color":"blue"}`, `{}`)}, true, 0, "", "", 1},
		{"create denied", whReview{Operation: "CREATE", Object: cm(`{"color":"red"}`, `{}`)}, false, 403, "Forbidden", `data.color: "red" is reserved`, 1},
		{"update allowed", whReview{Operation: "UPDATE", OldObject: cm(`{"id":"1"}`, `{}`), Object: cm(`{"id":"1","x":"y"}`, `{}`)}, true, 0, "", "", 0},
		{"update denied with a StatusError", whReview{Operation: "UPDATE", OldObject: cm(`{"id":"1"}`, `{}`), Object: cm(`{"id":"2"}`, `{}`)}, false, 422, "Invalid", "data.id: field is immutable", 0},
		{"delete allowed", whReview{Operation: "DELETE", OldObject: cm(`{}`, `{}`)}, true, 0, "", "", 0},
		{"delete denied", whReview{Operation: "DELETE", OldObject: cm(`{}`, `{"protected":"true"}`)}, false, 403, "Forbidden", "protected", 0},
		{"connect", whReview{Operation: "CONNECT"}, true, 0, "", "", 0},
		{"unknown operation", whReview{Operation: "PATCH", Object: cm(`{}`, `{}`)}, false, 400, "BadRequest", `unknown operation "PATCH"`, 0},
		{"delete without oldObject", whReview{Operation: "DELETE"}, false, 400, "BadRequest", "decode oldObject: the review has none", 0},
		{"undecodable object", whReview{Operation: "CREATE", Object: `{"data":{"a":1}}`}, false, 400, "BadRequest", "decode object into *kube.ConfigMap", 0},
		{"another kind", whReview{Operation: "CREATE", Kind: kube.GroupVersionKind{Version: "v1", Kind: "Secret"}, Object: `{}`}, false, 400, "BadRequest",
			"webhook for v1, Kind=ConfigMap got a review for v1, Kind=Secret", 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.review
			r.UID = fmt.Sprintf("uid-%d", i)
			if r.Kind == (kube.GroupVersionKind{}) {
				r.Kind = whConfigMapKind
			}
			r.Resource, r.Namespace, r.Name, r.User, r.DryRun = "configmaps", "default", "c", "alice", true
			r.SubResource = "status" // not a ConfigMap's, but it shows the subresource carried through
			got := whPostReview(t, client, url, r.JSON())
			if got.UID != r.UID || got.Allowed != tt.allowed || len(got.Warnings) != tt.warnings || got.Patch != nil {
				t.Errorf("response = %+v, want uid %s, allowed %v, %d warnings, no patch", got, r.UID, tt.allowed, tt.warnings)
			}
			if tt.allowed {
				return
			}
			if got.Status == nil || got.Status.Code != tt.wantCode || got.Status.Reason != tt.wantReason || !strings.Contains(got.Status.Message, tt.substr) {
				t.Errorf("status = %+v, want %d %s containing %q", got.Status, tt.wantCode, tt.wantReason, tt.substr)
			}
		})
	}
	if seen == nil || seen.UserInfo.Username != "alice" || seen.DryRun == nil || !*seen.DryRun || seen.Operation != "CREATE" ||
		seen.Resource.Resource != "configmaps" || seen.Kind != whConfigMapKind || seen.RequestKind == nil || *seen.RequestKind != whConfigMapKind ||
		seen.SubResource != "status" || seen.RequestSubResource != "status" || seen.Namespace != "default" || len(seen.UserInfo.Groups) != 1 {
		t.Errorf("AdmissionRequestFrom() in the validator = %+v", seen)
	}
	if _, ok := webhook.AdmissionRequestFrom(context.Background()); ok {
		t.Errorf("AdmissionRequestFrom(Background) ok, want not")
	}
}

func TestWebhookTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := webhook.ValidatingFor[kube.ConfigMap](webhook.ValidatorFuncs[kube.ConfigMap]{
			Create: func(ctx context.Context, _ *kube.ConfigMap) (webhook.Warnings, error) {
				<-ctx.Done() // a call that waits on something slow
				return nil, fmt.Errorf("ask the quota service: %w", ctx.Err())
			},
		})
		review := whReview{UID: "slow", Operation: "CREATE", Kind: whConfigMapKind, Object: `{"metadata":{"name":"c"}}`}
		r := serveTimedReview(t, h, "/validate--v1-configmap?timeout=3s", review, 3*time.Second)
		if r.UID != "slow" || r.Allowed || r.Status.Code != 504 || !strings.Contains(r.Status.Message, "deadline exceeded") {
			t.Errorf("response = %+v %+v, want denied 504 with uid slow", r, r.Status)
		}
	})
}

// serveTimedReview has h answer review at target, inside a synctest
// bubble, and fails the test unless the answer comes after exactly
// want (the API server's timeout).
func serveTimedReview(t *testing.T, h http.Handler, target string, review whReview, want time.Duration) whResponse {
	t.Helper()
	req := httptest.NewRequest("POST", target, strings.NewReader(review.JSON()))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, req)
	if took := time.Since(start); took != want {
		t.Errorf("answered after %v, want %v (the API server's timeout)", took, want)
	}
	var out struct{ Response whResponse }
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out.Response
}

func TestWebhookRegisterWithoutKindPanics(t *testing.T) {
	srv, err := webhook.New(webhook.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "states no kind") {
			t.Errorf("RegisterValidator[kube.Unstructured] panic = %v, want states no kind", p)
		}
	}()
	webhook.RegisterValidator[kube.Unstructured](srv, webhook.ValidatorFuncs[kube.Unstructured]{})
}

func TestWebhookServerNeverStarted(t *testing.T) {
	srv, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Listen(); err == nil || !strings.Contains(err.Error(), "tls.crt") {
		t.Errorf("Listen() without certificate = %v, want an error naming tls.crt", err)
	}
	if srv.NeedLeaderElection() || srv.Addr() != nil || srv.StartedChecker()(nil) == nil {
		t.Errorf("a server never started: NeedLeaderElection %v, Addr %v, StartedChecker nil", srv.NeedLeaderElection(), srv.Addr())
	}
}
