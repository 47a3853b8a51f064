// SPDX-License-Identifier: Apache-2.0

package metricsauth_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/metricsauth"
)

// TestServesAuthorizedCallers: the metrics are served over HTTPS to a
// caller whose token the API server authenticates and whose get of
// /metrics it authorizes; a caller without a token, or with one it does
// not know, gets 401; one it does not authorize, 403; plain HTTP gets
// no metrics.
func TestServesAuthorizedCallers(t *testing.T) {
	f := start(t, metricsauth.Options{})
	tests := []struct {
		name, url, token string
		code             int
		body             string // contained in the answer
	}{
		{"admin", f.url, adminToken, 200, "rest_client_requests_total{"},
		{"no token", f.url, "", 401, "Unauthorized"},
		{"unknown token", f.url, "nobody-knows-me", 401, "Unauthorized"},
		{"denied", f.url, deniedToken, 403, `user "denied" may not get /metrics`},
		{"admin, another path", strings.TrimSuffix(f.url, "metrics") + "other", adminToken, 404, ""},
	}
	for _, tc := range tests {
		code, body := f.get(t, tc.url, tc.token)
		if code != tc.code || !strings.Contains(body, tc.body) {
			t.Errorf("%s: GET %s = %d %.80q, want %d with %q", tc.name, tc.url, code, body, tc.code, tc.body)
		}
	}
	resp, err := http.Get("http://" + f.ms.Addr().String() + "/metrics")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Errorf("GET over plain HTTP = %s, want no metrics", resp.Status)
		}
	}
}

// TestDecisionsCached: a scraper that comes back with the same token is
// not reviewed again while its decision is kept: one TokenReview and one
// SubjectAccessReview for five scrapes.
func TestDecisionsCached(t *testing.T) {
	f := start(t, metricsauth.Options{})
	f.api.ResetCounts()
	for range 5 {
		if code, body := f.get(t, f.url, adminToken); code != 200 {
			t.Fatalf("GET /metrics = %d %.80q, want 200", code, body)
		}
	}
	reviews := map[string]int{}
	for k, n := range f.api.Counts() {
		if strings.Contains(k, "tokenreviews") || strings.Contains(k, "subjectaccessreviews") {
			reviews[k] = n
		}
	}
	if len(reviews) != 2 {
		t.Fatalf("reviews sent for 5 scrapes: %v, want one TokenReview and one SubjectAccessReview", reviews)
	}
	for k, n := range reviews {
		if n != 1 {
			t.Errorf("%s sent %d times for 5 scrapes, want once", k, n)
		}
	}
}

// TestNew: New refuses a manager that serves its metrics itself, and
// options that name no certificate or two, naming what is wrong.
func TestNew(t *testing.T) {
	api := kubetest.New(kubetest.Options{})
	defer api.Close()
	plain, err := manager.New(api.Config(), manager.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := metricsauth.New(plain, metricsauth.Options{CertDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), `MetricsBindAddress is ":8080"`) {
		t.Errorf("New(manager serving plain metrics) = %v, want an error naming MetricsBindAddress", err)
	}
	mgr, err := manager.New(api.Config(), manager.Options{MetricsBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts metricsauth.Options
		want string
	}{
		{metricsauth.Options{}, "CertDir and Certificates are both empty"},
		{metricsauth.Options{CertDir: "/x", Certificates: &kubetestSource{}}, "both set"},
		{metricsauth.Options{CertDir: "/x", CertName: "../tls.crt"}, "CertName"},
		{metricsauth.Options{CertDir: "/x", BindAddress: "8443"}, `BindAddress "8443"`},
	} {
		if _, err := metricsauth.New(mgr, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error containing %q", tc.opts, err, tc.want)
		}
	}
	ms, err := metricsauth.New(mgr, metricsauth.Options{CertDir: "/nonexistent", BindAddress: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ms.Listen(); err == nil || !strings.Contains(err.Error(), "/nonexistent/tls.crt") {
		t.Errorf("Listen() without the certificate = %v, want an error naming /nonexistent/tls.crt", err)
	}
}

// kubetestSource is a certificate source without a certificate.
type kubetestSource struct{ metricsauth.CertificateSource }

// TestReviewFails: when the API server does not answer a review (here,
// the manager is not allowed to create TokenReviews), the scrape gets a
// 500, and the failure is not kept: the next scrape is reviewed again.
func TestReviewFails(t *testing.T) {
	f := start(t, metricsauth.Options{})
	forbidden := kube.NewStatusError(403, kube.ReasonForbidden,
		`tokenreviews.authentication.k8s.io is forbidden: User "admin" cannot create resource "tokenreviews"`)
	f.api.FailNext(1, func(info kubetest.RequestInfo) bool { return info.Resource == "tokenreviews" }, forbidden)
	if code, body := f.get(t, f.url, adminToken); code != 500 || !strings.Contains(body, "could not review") {
		t.Errorf("GET /metrics while the review fails = %d %.80q, want 500", code, body)
	}
	if code, body := f.get(t, f.url, adminToken); code != 200 {
		t.Errorf("GET /metrics after the failure = %d %.80q, want 200", code, body)
	}
}
