// SPDX-License-Identifier: Apache-2.0

package certs_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager/webhook"
	"github.com/kubeloop/kubeloop/manager/webhook/certs"
)

// A webhook server that serves the certificates of a Secret the program
// makes and rotates itself. In a program, give srv to
// manager.Options.WebhookServer and add kc.Injector() to the manager,
// which keeps the caBundle of the "widgets" configuration on the leader.
func Example() {
	api := kubetest.New(kubetest.Options{}) // a cluster, for the example
	defer api.Close()
	client, _ := kube.NewClient(api.Config(), kube.ClientOptions{})

	kc, err := certs.New(client, certs.Options{
		Secret:                          kube.Key{Namespace: "default", Name: "widgets-webhook-certs"},
		Service:                         kube.Key{Namespace: "default", Name: "widgets-webhook"},
		IPAddresses:                     []net.IP{net.IPv4(127, 0, 0, 1)}, // the example calls it on loopback
		ValidatingWebhookConfigurations: []string{"widgets"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, Certificates: kc})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := srv.Listen(); err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }() // runs kc.Start too
	defer func() { stop(); <-done }()

	// The caBundle is known once kc has made (or read) the Secret.
	bundle, changed := kc.CABundle()
	if bundle == nil {
		<-changed
		bundle, _ = kc.CABundle()
	}
	for srv.StartedChecker()(nil) != nil {
		time.Sleep(time.Millisecond)
	}

	// What the API server does with the caBundle it was given.
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(bundle)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	resp, err := hc.Get("https://" + srv.Addr().String() + "/validate")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	leaf := resp.TLS.PeerCertificates[0]
	fmt.Println(resp.Status, "from", leaf.DNSNames)
	fmt.Println("valid for", leaf.NotAfter.Sub(leaf.NotBefore).Round(time.Hour))
	// Output:
	// 404 Not Found from [widgets-webhook.default.svc widgets-webhook.default.svc.cluster.local]
	// valid for 8760h0m0s
}
