// SPDX-License-Identifier: Apache-2.0

package certs_test

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/webhook/certs"
)

// TestDirRotation keeps the certificates in a directory, with no API
// server, for four days of synctest time: every ten minutes what is
// served, and what was served ten minutes before, verifies against the
// ca.crt on disk now and ten minutes before; the keys are the owner's
// only.
func TestDirRotation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	synctest.Test(t, func(t *testing.T) {
		opts := testOptions()
		opts.Secret, opts.Dir, opts.ValidatingWebhookConfigurations = kube.Key{}, dir, nil
		c, err := certs.New(nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		run(t, c)
		synctest.Wait()

		serials := map[string]bool{}
		var before []byte
		var served *x509.Certificate
		for step := range 4 * 24 * 6 {
			bundle, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range [][]byte{before, bundle} {
				if b == nil {
					continue
				}
				leaf, err := servedBy(c, b, time.Now())
				if err != nil {
					t.Fatalf("step %d: serves %v, refused by a ca.crt a client may hold: %v", step, leaf.SerialNumber, err)
				}
				if err := verify(served, b, time.Now()); err != nil {
					t.Fatalf("step %d: served %v ten minutes ago, refused by a ca.crt a client may hold: %v", step, served.SerialNumber, err)
				}
				serials[leaf.SerialNumber.String()] = true
			}
			cert, _ := c.GetCertificate(nil)
			served, before = cert.Leaf, bundle
			time.Sleep(10 * time.Minute)
			synctest.Wait()
		}
		if len(serials) < 16 {
			t.Errorf("served %d certificates in 96h, want at least 16", len(serials))
		}
	})
	for name, want := range map[string]os.FileMode{"ca.crt": 0o644, "ca.key": 0o600, "tls.crt": 0o644, "tls.key": 0o600} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, %v; want mode %v", name, fi.Mode().Perm(), err, want)
		}
	}
}

// TestDirOrSecret: Options set one place to keep the certificates.
func TestDirOrSecret(t *testing.T) {
	opts := testOptions()
	opts.Dir = t.TempDir()
	if _, err := certs.New(nil, opts); err == nil {
		t.Errorf("New(Secret and Dir) = nil, want an error")
	}
	opts.Secret = kube.Key{}
	if _, err := certs.New(nil, opts); err == nil {
		t.Errorf("New(Dir, no client, a configuration to inject) = nil, want an error")
	}
	opts.ValidatingWebhookConfigurations = nil
	if _, err := certs.New(nil, opts); err != nil {
		t.Errorf("New(Dir, no client) = %v, want nil", err)
	}
}
