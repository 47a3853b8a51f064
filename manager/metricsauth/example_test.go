// SPDX-License-Identifier: Apache-2.0

package metricsauth_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/metricsauth"
	"github.com/kubeloop/kubeloop/manager/webhook/certs"
)

// A manager whose metrics only authorized callers read, over HTTPS, with
// a certificate package certs makes: Prometheus's token is let in, a
// caller without a token gets 401, one the API server does not
// authorize 403. In a cluster the certificate would rather come from a
// Secret (certs.Options.Secret) or a mounted cert-manager Secret
// (Options.CertDir), and BindAddress be ":8443".
func Example() {
	api := kubetest.New(kubetest.Options{Tokens: map[string]string{
		"manager-token": "admin", "prometheus-token": "prometheus", "intruder-token": "intruder"}})
	defer api.Close()
	api.Deny("intruder", "get", "/metrics") // RBAC would bind prometheus, not intruder, to metrics-reader

	mgr, err := manager.New(api.ConfigFor("admin"), manager.Options{MetricsBindAddress: "0"}) // no plain HTTP server
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "metrics-certs")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	kc, err := certs.New(nil, certs.Options{Dir: dir, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		panic(err)
	}
	ms, err := metricsauth.New(mgr, metricsauth.Options{BindAddress: "127.0.0.1:0", Certificates: kc})
	if err != nil {
		panic(err)
	}
	if err := mgr.Add(ms); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()

	bundle, changed := kc.CABundle() // the CA a scraper trusts, once made
	for bundle == nil {
		<-changed
		bundle, changed = kc.CABundle()
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(bundle)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	for _, token := range []string{"", "prometheus-token", "intruder-token"} {
		req, _ := http.NewRequest(http.MethodGet, "https://"+ms.Addr().String()+"/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Printf("%q: %s\n", token, resp.Status)
	}
	client.CloseIdleConnections()
	cancel()
	fmt.Println(<-done)
	// Output:
	// "": 401 Unauthorized
	// "prometheus-token": 200 OK
	// "intruder-token": 403 Forbidden
	// <nil>
}
