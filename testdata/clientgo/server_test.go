// SPDX-License-Identifier: Apache-2.0

package clientgo

import (
	"net/http"
	"os"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// server is one API server the tests run against.
type server struct {
	name string
	cfg  *rest.Config
	wire *wireLog
}

// servers are kubetest, served on a loopback listener of this process,
// and the server of the kubeconfig in $KUBELOOP_KUBECONFIG (the real
// kube-apiserver of testdata/kube-apiserver's harness) when it is set.
func servers(t *testing.T) []server {
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	l, err := srv.Listen(true)
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	out := []server{{name: "kubetest", cfg: &rest.Config{Host: l.URL, TLSClientConfig: rest.TLSClientConfig{CAData: l.CAData}}}}
	if path := os.Getenv("KUBELOOP_KUBECONFIG"); path != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		out = append(out, server{name: "kubeconfig", cfg: cfg})
	} else {
		t.Log("KUBELOOP_KUBECONFIG is not set: kubetest only")
	}
	for i := range out {
		out[i].wire = &wireLog{}
		out[i].cfg.QPS, out[i].cfg.Burst = 500, 1000
		out[i].cfg.WarningHandler = rest.NoWarnings{}
		out[i].cfg.Wrap(out[i].wire.wrap)
	}
	return out
}

// exchange is the media types of one request and its answer.
type exchange struct {
	method, path   string
	sent, answered string
	code           int
}

// wireLog records the media types of every exchange, so that the tests
// can tell protobuf was spoken.
type wireLog struct {
	mu   sync.Mutex
	last exchange
}

func (w *wireLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(r)
		if err == nil {
			w.mu.Lock()
			w.last = exchange{method: r.Method, path: r.URL.Path, sent: r.Header.Get("Content-Type"),
				answered: resp.Header.Get("Content-Type"), code: resp.StatusCode}
			w.mu.Unlock()
		}
		return resp, err
	})
}

// lastExchange is the latest exchange.
func (w *wireLog) lastExchange() exchange {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
