// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

const reviewCreate = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
	"uid":"705ab4f5-6393-11e8-b7cc-42010a800002",
	"kind":{"group":"","version":"v1","kind":"ConfigMap"},
	"resource":{"group":"","version":"v1","resource":"configmaps"},
	"requestKind":{"group":"","version":"v1","kind":"ConfigMap"},
	"requestResource":{"group":"","version":"v1","resource":"configmaps"},
	"name":"settings","namespace":"default","operation":"CREATE",
	"userInfo":{"username":"admin","uid":"1","groups":["system:masters","system:authenticated"]},
	"object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default"},"data":{"color":"blue"}},
	"oldObject":null,"dryRun":false,
	"options":{"apiVersion":"meta.k8s.io/v1","kind":"CreateOptions","fieldManager":"kubectl"}}}`

// post sends body to h as the API server does and returns the recorded
// answer.
func post(h http.Handler, target, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// decodeReview reads a 200 answer as an AdmissionReview.
func decodeReview(t *testing.T, rec *httptest.ResponseRecorder) webhook.AdmissionReview {
	t.Helper()
	if rec.Code != http.StatusOK {
		t.Fatalf("answer = %d %s, want 200", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var review webhook.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil || review.Response == nil {
		t.Fatalf("answer %s is not a review with a response: %v", rec.Body, err)
	}
	return review
}

func TestWebhookAdmissionEchoesUIDAndVersion(t *testing.T) {
	var got *webhook.AdmissionRequest
	h := webhook.Admission(func(_ context.Context, req *webhook.AdmissionRequest) webhook.AdmissionResponse {
		got = req
		resp := webhook.Allowed([]string{"careful"})
		resp.UID = "something else"
		return resp
	})
	for _, version := range []string{webhook.AdmissionV1, webhook.AdmissionV1beta1} {
		body := strings.Replace(reviewCreate, webhook.AdmissionV1, version, 1)
		review := decodeReview(t, post(h, "/validate?timeout=10s", body))
		if review.APIVersion != version || review.Kind != "AdmissionReview" {
			t.Errorf("answer to %s is %s %s, want the same version", version, review.APIVersion, review.Kind)
		}
		r := review.Response
		if r.UID != "705ab4f5-6393-11e8-b7cc-42010a800002" || !r.Allowed || len(r.Warnings) != 1 || r.Result != nil {
			t.Errorf("response = %+v, want the request's uid, allowed, one warning", r)
		}
	}
	if got.Operation != webhook.OpCreate || got.Kind.Kind != "ConfigMap" || got.Resource.Resource != "configmaps" ||
		got.Name != "settings" || got.Namespace != "default" || got.UserInfo.Username != "admin" ||
		len(got.UserInfo.Groups) != 2 || got.DryRun == nil || *got.DryRun || got.RequestKind == nil ||
		!strings.Contains(string(got.Object), `"color":"blue"`) || !strings.Contains(string(got.Options), "kubectl") {
		t.Errorf("request decoded as %+v", got)
	}
}

func TestWebhookAdmissionMalformed(t *testing.T) {
	called := false
	h := webhook.Admission(func(context.Context, *webhook.AdmissionRequest) webhook.AdmissionResponse {
		called = true
		return webhook.Allowed(nil)
	})
	huge := `{"request":{"uid":"u","object":{"data":"` + strings.Repeat("x", webhook.MaxAdmissionBytes) + `"}}}`
	tests := []struct {
		name, method, contentType, target, body string
		wantHTTP                                int    // when not 200
		wantCode                                int32  // the review's status code when 200
		wantMsg                                 string // in the message
	}{
		{"GET", "GET", "application/json", "/v", reviewCreate, 405, 0, "only POST"},
		{"yaml", "POST", "application/yaml", "/v", reviewCreate, 415, 0, "application/yaml"},
		{"json with charset", "POST", "application/json; charset=utf-8", "/v", reviewCreate, 200, 0, ""},
		{"empty", "POST", "application/json", "/v", "", 400, 0, "empty"},
		{"too large", "POST", "application/json", "/v", huge, 413, 0, "larger than the limit of 7340032 bytes"},
		{"not JSON", "POST", "application/json", "/v", "{request:", 400, 0, "decode admission review"},
		{"no request", "POST", "application/json", "/v", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, 400, 0, "no request.uid"},
		{"empty uid", "POST", "application/json", "/v", strings.Replace(reviewCreate, "705ab4f5-6393-11e8-b7cc-42010a800002", "", 1), 400, 0, "no request.uid"},
		{"wrong type with uid", "POST", "application/json", "/v", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","operation":5}}`, 200, 400, "cannot unmarshal number"},
		{"unknown version", "POST", "application/json", "/v", `{"apiVersion":"admission.k8s.io/v2","kind":"AdmissionReview","request":{"uid":"u1"}}`, 200, 400, `apiVersion "admission.k8s.io/v2"`},
		{"bad timeout", "POST", "application/json", "/v?timeout=10", reviewCreate, 200, 400, `timeout parameter "10"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called = false
			req := httptest.NewRequest(tt.method, tt.target, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.contentType)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if tt.wantHTTP != 200 {
				var st kube.Status
				if rec.Code != tt.wantHTTP || json.Unmarshal(rec.Body.Bytes(), &st) != nil ||
					st.Kind != "Status" || st.Code != int32(tt.wantHTTP) || !strings.Contains(st.Message, tt.wantMsg) {
					t.Errorf("answer = %d %s, want %d with a Status containing %q", rec.Code, rec.Body, tt.wantHTTP, tt.wantMsg)
				}
				if called {
					t.Errorf("the handler was called")
				}
				return
			}
			r := decodeReview(t, rec).Response
			if tt.wantCode == 0 {
				if !r.Allowed || !called {
					t.Errorf("response = %+v (called %v), want allowed by the handler", r, called)
				}
				return
			}
			if r.UID == "" || r.Allowed || r.Result == nil || r.Result.Code != tt.wantCode ||
				r.Result.Reason != kube.ReasonBadRequest || !strings.Contains(r.Result.Message, tt.wantMsg) {
				t.Errorf("response = %+v %+v, want uid, denied with %d containing %q", r, r.Result, tt.wantCode, tt.wantMsg)
			}
			if called {
				t.Errorf("the handler was called")
			}
		})
	}
}

func TestWebhookAdmissionTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var deadline time.Time
		h := webhook.Admission(func(ctx context.Context, _ *webhook.AdmissionRequest) webhook.AdmissionResponse {
			deadline, _ = ctx.Deadline()
			<-ctx.Done()
			return webhook.Denied(fmt.Errorf("look up quota: %w", ctx.Err()), nil)
		})
		for _, tt := range []struct {
			target string
			want   time.Duration
		}{
			{"/v?timeout=7s", 7 * time.Second},
			{"/v?timeout=250ms", 250 * time.Millisecond},
			{"/v", webhook.DefaultTimeout},
		} {
			start := time.Now()
			r := decodeReview(t, post(h, tt.target, reviewCreate)).Response
			if took := time.Since(start); took != tt.want || !deadline.Equal(start.Add(tt.want)) {
				t.Errorf("%s: answered after %v with deadline %v, want %v", tt.target, took, deadline.Sub(start), tt.want)
			}
			if r.Allowed || r.Result.Code != http.StatusGatewayTimeout || r.Result.Reason != kube.ReasonTimeout ||
				!strings.Contains(r.Result.Message, "look up quota: context deadline exceeded") {
				t.Errorf("%s: response = %+v %+v, want denied 504 Timeout", tt.target, r, r.Result)
			}
		}
	})
}

func TestWebhookAdmissionPanic(t *testing.T) {
	h := webhook.Admission(func(context.Context, *webhook.AdmissionRequest) webhook.AdmissionResponse {
		panic("nil map")
	})
	r := decodeReview(t, post(h, "/v", reviewCreate)).Response
	if r.Allowed || r.UID == "" || r.Result.Code != 500 || !strings.Contains(r.Result.Message, "panicked: nil map") {
		t.Errorf("response = %+v %+v, want denied 500 with the panic", r, r.Result)
	}
}

func TestWebhookDenied(t *testing.T) {
	invalid := kube.NewStatusError(422, kube.ReasonInvalid, `Widget "w" is invalid: spec.size: must be positive`)
	invalid.Status.Details = &kube.StatusDetails{Name: "w", Causes: []kube.StatusCause{{Type: "FieldValueInvalid", Field: "spec.size"}}}
	tests := []struct {
		name       string
		err        error
		wantCode   int32
		wantReason string
		wantMsg    string
	}{
		{"plain", errors.New("size must be positive"), 403, kube.ReasonForbidden, "size must be positive"},
		{"status", fmt.Errorf("check: %w", invalid), 422, kube.ReasonInvalid, `Widget "w" is invalid: spec.size: must be positive`},
		{"status without code", &kube.StatusError{Status: kube.Status{Message: "no"}}, 403, "", "no"},
		{"deadline", context.DeadlineExceeded, 504, kube.ReasonTimeout, "context deadline exceeded"},
	}
	for _, tt := range tests {
		r := webhook.Denied(tt.err, []string{"w"})
		if r.Allowed || r.Result == nil || r.Result.Code != tt.wantCode || r.Result.Reason != tt.wantReason ||
			r.Result.Message != tt.wantMsg || r.Result.Status != "Failure" || r.Result.Kind != "" || len(r.Warnings) != 1 {
			t.Errorf("%s: Denied(%v) = %+v %+v, want %d %s %q", tt.name, tt.err, r, r.Result, tt.wantCode, tt.wantReason, tt.wantMsg)
		}
	}
	if r := webhook.Denied(invalid, nil); r.Result.Details == nil || len(r.Result.Details.Causes) != 1 {
		t.Errorf("Denied(invalid) lost the details: %+v", r.Result)
	}
	if r := webhook.Denied(nil, nil); !r.Allowed {
		t.Errorf("Denied(nil) = %+v, want allowed", r)
	}
}

func TestWebhookPatchedResponse(t *testing.T) {
	ops := []jsonpatch.Operation{{Op: jsonpatch.OpAdd, Path: "/data/size", Value: json.RawMessage(`"1"`)}}
	h := webhook.Admission(func(context.Context, *webhook.AdmissionRequest) webhook.AdmissionResponse {
		resp, err := webhook.Patched(ops, nil)
		if err != nil {
			t.Errorf("Patched() error: %v", err)
		}
		return resp
	})
	rec := post(h, "/m", reviewCreate)
	// On the wire the patch is base64 text.
	var raw struct {
		Response struct {
			Patch     string `json:"patch"`
			PatchType string `json:"patchType"`
		} `json:"response"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if raw.Response.Patch != "W3sib3AiOiJhZGQiLCJwYXRoIjoiL2RhdGEvc2l6ZSIsInZhbHVlIjoiMSJ9XQ==" || raw.Response.PatchType != "JSONPatch" {
		t.Errorf("patch on the wire = %q %q, want the base64 of the operations and JSONPatch", raw.Response.Patch, raw.Response.PatchType)
	}
	if r, _ := webhook.Patched(nil, nil); !r.Allowed || r.Patch != nil || r.PatchType != "" {
		t.Errorf("Patched(no operations) = %+v, want allowed without a patch", r)
	}
}
