// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/webhook"
	"github.com/kubeloop/kubeloop/manager/webhook/certs"
)

// servedCerts is a webhook certificate source that records what each
// handshake served.
type servedCerts struct {
	*certs.Certs

	mu      sync.Mutex
	serials map[string]bool // serving certificates served
	cas     map[string]bool // their issuers (authority key ids)
}

func (s *servedCerts) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	c, err := s.Certs.GetCertificate(hello)
	if err == nil && hello != nil && hello.Conn != nil { // a handshake, not a readiness check
		s.mu.Lock()
		s.serials[c.Leaf.SerialNumber.String()] = true
		s.cas[string(c.Leaf.AuthorityKeyId)] = true
		s.mu.Unlock()
	}
	return c, err
}

func (s *servedCerts) counts() (serials, cas int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.serials), len(s.cas)
}

// TestWebhookCertificatesRotate: the real kube-apiserver calls a
// validating and a mutating webhook whose certificates package certs
// makes, and whose caBundles its injector sets, through rotations of the
// serving certificate and of the CA (lives of seconds: CA 60s, replaced
// 40s before its end; serving 30s, replaced 15s before; overlap 5s).
// Every response closes its connection, so that every call is a new
// handshake the API server verifies with the caBundle it holds then.
// Over 50s, ConfigMaps are created four times a second: none may be
// refused, and the webhooks must have served at least 4 serving
// certificates from at least 2 CAs.
func TestWebhookCertificatesRotate(t *testing.T) {
	c, ctx := adminClient(t)
	name := "kubeloop-certs-" + randomName()
	kc, err := certs.New(c, certs.Options{
		Secret:                          kube.Key{Namespace: "default", Name: name},
		IPAddresses:                     []net.IP{net.IPv4(127, 0, 0, 1)},
		CAValidity:                      60 * time.Second,
		CARenewBefore:                   40 * time.Second,
		Validity:                        30 * time.Second,
		RenewBefore:                     15 * time.Second,
		Overlap:                         5 * time.Second,
		ValidatingWebhookConfigurations: []string{name},
		MutatingWebhookConfigurations:   []string{name},
		CustomResourceDefinitions:       []string{"certgizmos." + gizmoGroup},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Delete(context.Background(), &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: name}})
	source := &servedCerts{Certs: kc, serials: map[string]bool{}, cas: map[string]bool{}}
	srv, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, Certificates: source})
	if err != nil {
		t.Fatal(err)
	}
	var validated, mutated atomic.Int64
	closing := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			h.ServeHTTP(w, r)
		})
	}
	srv.Register("/validate", closing(webhook.Admission(func(ctx context.Context, req *webhook.AdmissionRequest) webhook.AdmissionResponse {
		validated.Add(1)
		return webhook.Allowed(nil)
	})))
	srv.Register("/mutate", closing(webhook.Admission(func(ctx context.Context, req *webhook.AdmissionRequest) webhook.AdmissionResponse {
		mutated.Add(1)
		return webhook.Allowed(nil)
	})))
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop()
	wg.Go(func() {
		if err := srv.Start(runCtx); err != nil {
			t.Errorf("webhook server: %v", err)
		}
	})
	wg.Go(func() {
		if err := kc.Injector().Start(runCtx); err != nil {
			t.Errorf("injector: %v", err)
		}
	})
	url := "https://" + srv.Addr().String()

	// The configurations and the CRD are made without caBundles: the
	// injector sets them.
	rule := map[string]any{
		"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"},
		"resources": []any{"configmaps"}, "scope": "Namespaced",
	}
	selector := map[string]any{"matchLabels": map[string]any{"kubeloop.test/certs": name}}
	var made []kube.Object
	for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
		path := map[string]string{"ValidatingWebhookConfiguration": "/validate", "MutatingWebhookConfiguration": "/mutate"}[kind]
		cfg := webhookConfiguration(kind, name, url+path, "", rule)
		hook := cfg.Content["webhooks"].([]any)[0].(map[string]any)
		delete(hook["clientConfig"].(map[string]any), "caBundle")
		hook["objectSelector"] = selector
		if err := c.Create(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		made = append(made, cfg)
	}
	crd := gizmoCRD("certgizmos", "CertGizmo", []string{"v1", "v2"}, map[string]any{
		"strategy": "Webhook",
		"webhook": map[string]any{
			"conversionReviewVersions": []any{"v1"},
			"clientConfig":             map[string]any{"url": url + "/convert"},
		},
	})
	if err := c.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	made = append(made, crd)
	defer func() {
		for _, obj := range made {
			c.Delete(context.Background(), obj)
		}
	}()

	injected := func() error {
		bundle, _ := kc.CABundle()
		if bundle == nil {
			return errors.New("no caBundle yet")
		}
		want := base64.StdEncoding.EncodeToString(bundle)
		for _, obj := range made {
			got := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: obj.GroupVersionKind().APIVersion(), Kind: obj.GroupVersionKind().Kind}}
			if err := c.Get(ctx, kube.Key{Name: obj.(*kube.Unstructured).Name}, got); err != nil {
				return err
			}
			var cc map[string]any
			if got.Kind == "CustomResourceDefinition" {
				cc = got.Content["spec"].(map[string]any)["conversion"].(map[string]any)["webhook"].(map[string]any)["clientConfig"].(map[string]any)
			} else {
				cc = got.Content["webhooks"].([]any)[0].(map[string]any)["clientConfig"].(map[string]any)
			}
			if cc["caBundle"] != want {
				return fmt.Errorf("%s %s: caBundle is not the Secret's CAs", got.Kind, got.Name)
			}
		}
		return nil
	}
	eventually(t, "caBundles injected", injected)

	cm := func(i int) *kube.ConfigMap {
		return &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default",
			Name: fmt.Sprintf("%s-%d", name, i), Labels: map[string]string{"kubeloop.test/certs": name}}}
	}
	defer c.DeleteAllOf(context.Background(), kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		kube.DeleteAllOfOptions{Namespace: "default", LabelSelector: kube.SelectorFromSet(map[string]string{"kubeloop.test/certs": name})})
	// The configurations take a moment to reach the admission chain.
	i := 0
	eventually(t, "webhooks called", func() error {
		i++
		if err := c.Create(ctx, cm(i)); err != nil {
			return err
		}
		if validated.Load() == 0 || mutated.Load() == 0 {
			return errors.New("not called yet")
		}
		return nil
	})

	var refused []error
	for end := time.Now().Add(50 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		i++
		if err := c.Create(ctx, cm(i)); err != nil {
			refused = append(refused, fmt.Errorf("%s: %w", time.Now().Format(time.TimeOnly), err))
		}
	}
	if err := injected(); err != nil {
		t.Errorf("after the rotations: %v", err)
	}
	serials, cas := source.counts()
	t.Logf("%d creates, %d validations, %d mutations; %d serving certificates from %d CAs served", i, validated.Load(), mutated.Load(), serials, cas)
	if len(refused) > 0 {
		t.Errorf("%d of %d creates refused, want none; first: %v", len(refused), i, refused[0])
	}
	if serials < 4 || cas < 2 {
		t.Errorf("served %d serving certificates from %d CAs, want rotations of both (at least 4 and 2)", serials, cas)
	}
}
