// SPDX-License-Identifier: Apache-2.0

package certs_test

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager/webhook/certs"
)

// This file is the test harness: a kubetest server reached in process
// (usable in synctest bubbles) that serves ValidatingWebhookConfigurations
// through a CRD of their name (kubetest has no admissionregistration
// kinds), and runnables run for the length of a test.

var (
	crds     = kube.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	vwcs     = kube.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}
	secrets  = kube.GroupVersionResource{Version: "v1", Resource: "secrets"}
	vwcKind  = kube.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"}
	secretNS = "webhook-system"
)

// newServer is a kubetest server with the webhook-system namespace and
// the ValidatingWebhookConfiguration kind; inside a bubble, call it
// inside.
func newServer(t *testing.T) *kubetest.Server {
	t.Helper()
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	if _, err := srv.Create(kube.GroupVersionResource{Version: "v1", Resource: "namespaces"},
		map[string]any{"metadata": map[string]any{"name": secretNS}}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Create(crds, map[string]any{
		"metadata": map[string]any{"name": "validatingwebhookconfigurations.admissionregistration.k8s.io"},
		"spec": map[string]any{
			"group": "admissionregistration.k8s.io", "scope": "Cluster",
			"names": map[string]any{"plural": "validatingwebhookconfigurations", "kind": "ValidatingWebhookConfiguration"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}); err != nil {
		t.Fatal(err)
	}
	return srv
}

// client is a client of srv without client-side pacing.
func client(t *testing.T, srv *kubetest.Server) *kube.Client {
	t.Helper()
	cfg := srv.Config()
	cfg.QPS = -1
	c, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// createVWC makes a ValidatingWebhookConfiguration of two webhooks
// called by URL, with no caBundle.
func createVWC(t *testing.T, srv *kubetest.Server, name string) {
	t.Helper()
	hook := func(n string) map[string]any {
		return map[string]any{"name": n, "clientConfig": map[string]any{"url": "https://127.0.0.1:9443/validate"},
			"admissionReviewVersions": []any{"v1"}, "sideEffects": "None"}
	}
	if _, err := srv.Create(vwcs, map[string]any{"apiVersion": "admissionregistration.k8s.io/v1",
		"kind": "ValidatingWebhookConfiguration", "metadata": map[string]any{"name": name},
		"webhooks": []any{hook("a.example.com"), hook("b.example.com")}}); err != nil {
		t.Fatal(err)
	}
}

// caBundles returns the decoded caBundle of each webhook of the named
// configuration.
func caBundles(t *testing.T, srv *kubetest.Server, name string) [][]byte {
	t.Helper()
	obj, err := srv.Get(vwcs, "", name)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, h := range obj["webhooks"].([]any) {
		cc := h.(map[string]any)["clientConfig"].(map[string]any)
		s, _ := cc["caBundle"].(string)
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("caBundle %q: %v", s, err)
		}
		out = append(out, b)
	}
	return out
}

// run runs r until the test ends; the test fails if r returns an error.
func run(t *testing.T, r interface{ Start(context.Context) error }) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := r.Start(ctx); err != nil {
			t.Errorf("Start() = %v, want nil", err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// testOptions have short lives, so that a test sees rotations in a few
// days of synctest's time: CA for 30h (replaced after 20h), serving
// certificates for 9h (replaced after 6h), an overlap of one hour.
func testOptions() certs.Options {
	return certs.Options{
		Secret:                          kube.Key{Namespace: secretNS, Name: "webhook-certs"},
		Service:                         kube.Key{Namespace: secretNS, Name: "webhook"},
		IPAddresses:                     nil,
		CAValidity:                      30 * time.Hour,
		CARenewBefore:                   10 * time.Hour,
		Validity:                        9 * time.Hour,
		RenewBefore:                     3 * time.Hour,
		Overlap:                         time.Hour,
		ValidatingWebhookConfigurations: []string{"widgets"},
	}
}

// servedBy verifies what c serves against the CAs of bundle, as the API
// server verifies the webhook, for the Service's name at now.
func servedBy(c *certs.Certs, bundle []byte, now time.Time) (*x509.Certificate, error) {
	cert, err := c.GetCertificate(nil)
	if err != nil {
		return nil, err
	}
	return cert.Leaf, verify(cert.Leaf, bundle, now)
}

// verify verifies leaf (if not nil) against the CAs of bundle, as the
// API server verifies the webhook, for the Service's name at now.
func verify(leaf *x509.Certificate, bundle []byte, now time.Time) error {
	if leaf == nil {
		return nil
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(bundle)
	_, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "webhook." + secretNS + ".svc", CurrentTime: now})
	return err
}
