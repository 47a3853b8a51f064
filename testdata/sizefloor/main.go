// SPDX-License-Identifier: Apache-2.0

// Command sizefloor links the standard packages a kubeloop controller
// needs and does nothing with them: an HTTPS client with a CA pool and a
// client certificate, an HTTPS server with a ServeMux, encoding/json,
// log/slog (JSON and text), os/exec and os/signal. Its size is the floor
// cmd/mirror is measured against (cmd/README.md, "Size and memory"): what
// the mirror adds over it is kubeloop's. It lives under testdata so that
// `go build ./...` and `go test ./...` pass it by; build it by path:
//
//	go build -o /tmp/floor ./testdata/sizefloor
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	jsonLog := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	textLog := slog.New(slog.NewTextHandler(os.Stderr, nil))

	pool := x509.NewCertPool()
	pemBytes, _ := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	pool.AppendCertsFromPEM(pemBytes)
	if block, _ := pem.Decode(pemBytes); block != nil {
		_, _ = x509.ParseCertificate(block.Bytes)
	}
	cert, _ := tls.LoadX509KeyPair("client.crt", "client.key")
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		MinVersion: tls.VersionTLS12, RootCAs: pool, Certificates: []tls.Certificate{cert},
	}}}
	if resp, err := client.Get("https://127.0.0.1:1/"); err == nil {
		var v map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&v)
		jsonLog.Info("read", "value", v)
	}

	out, _ := exec.CommandContext(ctx, "true").Output()
	textLog.Info("ran", "output", string(out))

	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok"})
	})
	srv := &http.Server{Addr: "127.0.0.1:0", Handler: mux, TLSConfig: &tls.Config{}}
	go func() { _ = srv.ListenAndServeTLS("serving.crt", "serving.key") }()
	<-ctx.Done()
	_ = srv.Shutdown(context.Background())
}
