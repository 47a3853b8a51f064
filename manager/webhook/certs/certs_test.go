// SPDX-License-Identifier: Apache-2.0

package certs_test

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/webhook/certs"
)

// TestReplicasShareOneSecret starts two replicas at once on a cluster
// without the Secret: both try to create it, one wins, the other reads
// it, and both serve the same certificate, which the injected caBundle
// verifies.
func TestReplicasShareOneSecret(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		createVWC(t, srv, "widgets")
		a, err := certs.New(client(t, srv), testOptions())
		if err != nil {
			t.Fatal(err)
		}
		b, err := certs.New(client(t, srv), testOptions())
		if err != nil {
			t.Fatal(err)
		}
		run(t, a)
		run(t, b)
		run(t, a.Injector())
		time.Sleep(time.Second)
		synctest.Wait()

		ca, errA := a.GetCertificate(nil)
		cb, errB := b.GetCertificate(nil)
		if errA != nil || errB != nil {
			t.Fatalf("GetCertificate() = %v, %v; want certificates", errA, errB)
		}
		if !bytes.Equal(ca.Leaf.Raw, cb.Leaf.Raw) {
			t.Errorf("replicas serve serials %v and %v, want one certificate", ca.Leaf.SerialNumber, cb.Leaf.SerialNumber)
		}
		sec, err := srv.Get(secrets, secretNS, "webhook-certs")
		if err != nil {
			t.Fatal(err)
		}
		if typ := sec["type"]; typ != "kubernetes.io/tls" {
			t.Errorf("Secret type = %v, want kubernetes.io/tls", typ)
		}
		for i, bundle := range caBundles(t, srv, "widgets") {
			if _, err := servedBy(a, bundle, time.Now()); err != nil {
				t.Errorf("webhook %d: served certificate against the injected caBundle: %v", i, err)
			}
		}
		if got := ca.Leaf.DNSNames; strings.Join(got, ",") != "webhook."+secretNS+".svc,webhook."+secretNS+".svc.cluster.local" {
			t.Errorf("DNSNames = %q, want the Service's two names", got)
		}
	})
}

// TestRotationRefusesNoRequest runs two replicas and the injector for
// four days of synctest time, through four CA rotations and a dozen
// serving ones. Every ten minutes, the certificate each replica serves,
// and the one it served ten minutes before (a replica that has not read
// the Secret again yet), must verify against the caBundle injected now
// and against the one injected ten minutes before (an API server that
// has not seen the change yet): no request is refused at any step.
func TestRotationRefusesNoRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		createVWC(t, srv, "widgets")
		var replicas []*certs.Certs
		for range 2 {
			c, err := certs.New(client(t, srv), testOptions())
			if err != nil {
				t.Fatal(err)
			}
			run(t, c)
			replicas = append(replicas, c)
		}
		run(t, replicas[0].Injector())
		time.Sleep(time.Second)
		synctest.Wait()

		cas, serials := map[string]bool{}, map[string]bool{}
		var before []byte
		served := make([]*x509.Certificate, len(replicas)) // ten minutes ago
		for step := range 4 * 24 * 6 {
			now := time.Now()
			bundles := caBundles(t, srv, "widgets")
			if !bytes.Equal(bundles[0], bundles[1]) {
				t.Fatalf("step %d: the two webhooks have different caBundles", step)
			}
			bundle := bundles[0]
			for _, b := range [][]byte{before, bundle} {
				if b == nil {
					continue
				}
				for i, c := range replicas {
					leaf, err := servedBy(c, b, now)
					if err != nil {
						t.Fatalf("step %d (%v): replica %d serves %v, refused by a caBundle the API server may hold: %v", step, now, i, leaf.SerialNumber, err)
					}
					if err := verify(served[i], b, now); err != nil {
						t.Fatalf("step %d (%v): replica %d served %v ten minutes ago, refused by a caBundle the API server may hold: %v", step, now, i, served[i].SerialNumber, err)
					}
					serials[leaf.SerialNumber.String()] = true
					cas[string(leaf.AuthorityKeyId)] = true
				}
			}
			for i, c := range replicas {
				cert, _ := c.GetCertificate(nil)
				served[i] = cert.Leaf
			}
			before = bundle
			time.Sleep(10 * time.Minute)
			synctest.Wait()
		}
		// 96h: CAs made at 0, 20h, 40h, 60h, 80h; serving ones every 6h
		// and at each CA's first hour.
		if len(cas) < 4 || len(serials) < 16 {
			t.Errorf("saw %d CAs and %d serving certificates served, want at least 4 and 16", len(cas), len(serials))
		}
	})
}

// TestInjectorCorrectsAndInjectsLate changes a caBundle behind the
// injector's back, and creates a configuration after it started: both
// get the Secret's CAs.
func TestInjectorCorrectsAndInjectsLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		createVWC(t, srv, "widgets")
		opts := testOptions()
		opts.ValidatingWebhookConfigurations = []string{"widgets", "gadgets"}
		c, err := certs.New(client(t, srv), opts)
		if err != nil {
			t.Fatal(err)
		}
		run(t, c)
		run(t, c.Injector())
		time.Sleep(time.Second)
		synctest.Wait()
		want, _ := c.CABundle()

		obj, err := srv.Get(vwcs, "", "widgets")
		if err != nil {
			t.Fatal(err)
		}
		obj["webhooks"].([]any)[1].(map[string]any)["clientConfig"].(map[string]any)["caBundle"] = "Zm9v" // "foo"
		if _, err := srv.Update(vwcs, obj); err != nil {
			t.Fatal(err)
		}
		createVWC(t, srv, "gadgets")
		synctest.Wait()
		for _, name := range []string{"widgets", "gadgets"} {
			for i, got := range caBundles(t, srv, name) {
				if !bytes.Equal(got, want) {
					t.Errorf("%s webhook %d caBundle = %.40q, want the Secret's CAs", name, i, got)
				}
			}
		}
	})
}

// TestSecretDeletedIsMadeAgain deletes the Secret: a replica makes a new
// one, and serves and injects it.
func TestSecretDeletedIsMadeAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		createVWC(t, srv, "widgets")
		c, err := certs.New(client(t, srv), testOptions())
		if err != nil {
			t.Fatal(err)
		}
		run(t, c)
		run(t, c.Injector())
		time.Sleep(time.Second)
		synctest.Wait()
		first, _ := c.GetCertificate(nil)
		if err := srv.Delete(secrets, secretNS, "webhook-certs"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if _, err := srv.Get(secrets, secretNS, "webhook-certs"); err != nil {
			t.Fatalf("Secret after its deletion: %v, want it made again", err)
		}
		now, _ := c.GetCertificate(nil)
		if bytes.Equal(now.Leaf.Raw, first.Leaf.Raw) {
			t.Errorf("serves the deleted Secret's certificate, want the new one's")
		}
		if _, err := servedBy(c, caBundles(t, srv, "widgets")[0], time.Now()); err != nil {
			t.Errorf("served certificate against the injected caBundle: %v", err)
		}
	})
}

// TestNewChecksOptions: New names the field and the value.
func TestNewChecksOptions(t *testing.T) {
	cfg := &kube.Config{Host: "https://127.0.0.1:1"}
	kc, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*certs.Options)
		want string
	}{
		{"no secret", func(o *certs.Options) { o.Secret = kube.Key{Name: "x"} }, `Secret "x": want a namespace and a name`},
		{"no names", func(o *certs.Options) { o.Service = kube.Key{} }, "the certificate needs a name"},
		{"renew after expiry", func(o *certs.Options) { o.RenewBefore = 10 * time.Hour }, "RenewBefore 10h0m0s is not shorter than Validity 9h0m0s"},
		{"overlap too long", func(o *certs.Options) { o.Overlap = 4 * time.Hour }, "Overlap 4h0m0s is not shorter than RenewBefore 3h0m0s"},
		{"defaults", func(o *certs.Options) { *o = certs.Options{Secret: o.Secret, DNSNames: []string{"x"}} }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions()
			tc.edit(&opts)
			_, err := certs.New(kc, opts)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("New() = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestInjectorCRDConversion: a CRD named for its conversion webhook gets
// the Secret's CAs in spec.conversion.webhook.clientConfig.caBundle.
func TestInjectorCRDConversion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		version := func(name string, storage bool) map[string]any {
			return map[string]any{"name": name, "served": true, "storage": storage,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}
		}
		if _, err := srv.Create(crds, map[string]any{
			"metadata": map[string]any{"name": "widgets.example.com"},
			"spec": map[string]any{
				"group": "example.com", "scope": "Namespaced",
				"names":    map[string]any{"plural": "widgets", "kind": "Widget"},
				"versions": []any{version("v1", true), version("v2", false)},
				"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
					"conversionReviewVersions": []any{"v1"},
					"clientConfig": map[string]any{"service": map[string]any{
						"namespace": secretNS, "name": "webhook", "path": "/convert", "port": int64(443)}},
				}},
			},
		}); err != nil {
			t.Fatal(err)
		}
		opts := testOptions()
		opts.ValidatingWebhookConfigurations = nil
		opts.CustomResourceDefinitions = []string{"widgets.example.com"}
		c, err := certs.New(client(t, srv), opts)
		if err != nil {
			t.Fatal(err)
		}
		run(t, c)
		run(t, c.Injector())
		time.Sleep(time.Second)
		synctest.Wait()
		want, _ := c.CABundle()
		obj, err := srv.Get(crds, "", "widgets.example.com")
		if err != nil {
			t.Fatal(err)
		}
		cc := obj["spec"].(map[string]any)["conversion"].(map[string]any)["webhook"].(map[string]any)["clientConfig"].(map[string]any)
		if got, _ := cc["caBundle"].(string); got != base64.StdEncoding.EncodeToString(want) || len(want) == 0 {
			t.Errorf("CRD caBundle = %.40q, want the Secret's CAs", got)
		}
		if svc := cc["service"].(map[string]any); svc["path"] != "/convert" {
			t.Errorf("CRD clientConfig.service = %v, want it kept", svc)
		}
	})
}

// TestSecretOfItsOwnRepaired: a Secret that exists with keys of its own
// and a broken certificate gets new certificates and keeps the rest.
func TestSecretOfItsOwnRepaired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		if _, err := srv.Create(secrets, map[string]any{"metadata": map[string]any{"namespace": secretNS, "name": "webhook-certs"},
			"type": "Opaque", "data": map[string]any{"other": "b3RoZXI=", "tls.crt": "Z2FyYmFnZQ=="}}); err != nil {
			t.Fatal(err)
		}
		c, err := certs.New(client(t, srv), testOptions())
		if err != nil {
			t.Fatal(err)
		}
		run(t, c)
		time.Sleep(time.Second)
		synctest.Wait()
		sec, err := srv.Get(secrets, secretNS, "webhook-certs")
		if err != nil {
			t.Fatal(err)
		}
		data := sec["data"].(map[string]any)
		if sec["type"] != "Opaque" || data["other"] != "b3RoZXI=" {
			t.Errorf("Secret type %v, other %v; want Opaque and other kept", sec["type"], data["other"])
		}
		bundle, _ := c.CABundle()
		if _, err := servedBy(c, bundle, time.Now()); err != nil {
			t.Errorf("served certificate against the Secret's CAs: %v", err)
		}
	})
}
