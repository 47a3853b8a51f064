// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// A validating webhook for ConfigMaps, served over TLS on loopback, and
// the review the API server would send it for a create.
func Example() {
	// In a cluster, cert-manager writes tls.crt and tls.key into a mounted
	// Secret; here a test CA's pair in a temporary directory stands in.
	certDir, err := os.MkdirTemp("", "serving-certs-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(certDir)
	ca, err := kubetest.NewCA("example CA")
	if err != nil {
		panic(err)
	}
	if err := ca.WriteServing(certDir, "127.0.0.1"); err != nil {
		panic(err)
	}

	srv, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: certDir})
	if err != nil {
		panic(err)
	}
	path := webhook.RegisterValidator[kube.ConfigMap](srv, webhook.ValidatorFuncs[kube.ConfigMap]{
		Create: func(ctx context.Context, cm *kube.ConfigMap) (webhook.Warnings, error) {
			if cm.Data["color"] == "red" {
				return nil, errors.New(`data.color: "red" is reserved`)
			}
			return nil, nil
		},
	})
	fmt.Println("registered", path)

	// A manager's Start calls Listen, then Start, first of all.
	if err := srv.Listen(); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := srv.Start(ctx); err != nil {
			panic(err)
		}
	})
	for ready := srv.StartedChecker(); ready(nil) != nil; {
		time.Sleep(time.Millisecond)
	}

	// The API server POSTs to the URL of the webhook configuration, with
	// its timeout appended.
	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
		"uid":"0d4c4b1e","kind":{"group":"","version":"v1","kind":"ConfigMap"},
		"resource":{"group":"","version":"v1","resource":"configmaps"},
		"namespace":"default","name":"paint","operation":"CREATE","userInfo":{"username":"alice"},
		"object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"paint","namespace":"default"},"data":{"color":"red"}}}}`
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool}}}
	resp, err := client.Post("https://"+srv.Addr().String()+path+"?timeout=10s", "application/json", strings.NewReader(review))
	if err != nil {
		panic(err)
	}
	var answer struct {
		Response struct {
			UID     string
			Allowed bool
			Status  struct {
				Code    int
				Message string
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		panic(err)
	}
	resp.Body.Close()
	r := answer.Response
	fmt.Printf("uid %s allowed %v: %d %s\n", r.UID, r.Allowed, r.Status.Code, r.Status.Message)

	cancel()
	wg.Wait()
	// Output:
	// registered /validate--v1-configmap
	// uid 0d4c4b1e allowed false: 403 data.color: "red" is reserved
}
