// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/kubeloop/kubeloop/internal/webhook"
	"github.com/kubeloop/kubeloop/kube"
)

// WebhookOptions configure a [WebhookServer]. The zero value listens on
// port 9443 of every interface with the certificate in
// os.TempDir()/k8s-webhook-server/serving-certs, as controller-runtime.
type WebhookOptions struct {
	// Host is the address to listen on; empty means every interface.
	Host string
	// Port is the port to listen on: 0 means 9443; a negative port lets
	// the system choose a free one (for tests and demos), which
	// [WebhookServer.Addr] tells after Listen.
	Port int
	// CertDir holds the serving certificate and key, typically a mounted
	// kubernetes.io/tls Secret that cert-manager renews; empty means
	// os.TempDir()/k8s-webhook-server/serving-certs.
	CertDir string
	// CertName and KeyName are the PEM files in CertDir; empty means
	// "tls.crt" and "tls.key".
	CertName, KeyName string
	// Logger receives certificate loads (info), failed reloads and TLS
	// handshake errors (warn); nil discards them.
	Logger *slog.Logger
}

// WebhookServer serves admission and conversion webhooks to the API
// server over HTTPS.
//
//   - TLS 1.2 at least, HTTP/1.1, with the certificate and key read from
//     CertDir. Listen fails, naming the path, when they are missing or do
//     not match. Each handshake checks (stat only) whether the files
//     changed and serves the new pair if they did: a certificate rotated
//     on disk is served without a restart, and a half-written pair is
//     ignored (logged) until it is whole.
//   - Every review gets an answer that echoes its uid, within the timeout
//     the API server sets (handlers' contexts end at the ?timeout=
//     parameter of the call, 30s when absent). Malformed and oversized
//     reviews (over 7 MiB for admission, 256 MiB for conversion) are
//     answered with errors, and a panicking handler with a denial (code
//     500), never a dropped connection.
//   - Paths are exact: a request for a path nobody registered is a 404.
//   - Runs on every replica: it needs no leader election, and should run
//     before the caches so that the API server can call it while they
//     sync.
//   - [NewWebhookServer] does no I/O. Start blocks until its context is
//     done, then stops accepting, waits up to 30s for the reviews in
//     flight, and returns when everything it started has ended.
type WebhookServer struct {
	s *webhook.Server
}

// NewWebhookServer checks opts and returns a server that is not listening
// yet.
func NewWebhookServer(opts WebhookOptions) (*WebhookServer, error) {
	s, err := webhook.New(webhook.Options{
		Host: opts.Host, Port: opts.Port,
		CertDir: opts.CertDir, CertName: opts.CertName, KeyName: opts.KeyName,
		Logger: opts.Logger,
	})
	if err != nil {
		return nil, err
	}
	return &WebhookServer{s: s}, nil
}

// Register serves h at path, an exact path beginning with "/". Handlers
// come from [ValidatingWebhookFor], [MutatingWebhookFor] and
// [ConversionWebhook], or are any http.Handler. Registering a path twice
// panics, as http.ServeMux does; registering while the server runs is
// allowed.
func (s *WebhookServer) Register(path string, h http.Handler) { s.s.Register(path, h) }

// Listen loads the certificate and binds the address, so that the caller
// can fail before starting anything else; Start then serves on that
// socket. Calling it is optional (Start listens if it was not), calling
// it twice is an error.
func (s *WebhookServer) Listen() error { return s.s.Listen() }

// Start serves until ctx is done, then drains; see [WebhookServer]. A
// failure to listen or to serve is returned. Start may be called once.
func (s *WebhookServer) Start(ctx context.Context) error { return s.s.Start(ctx) }

// Addr is the address the server listens on, nil before Listen or Start.
func (s *WebhookServer) Addr() net.Addr { return s.s.Addr() }

// StartedChecker returns a readiness check that fails until Start serves,
// and again once Start's context is done.
func (s *WebhookServer) StartedChecker() func(*http.Request) error { return s.s.Started }

// Name is the server's name in the manager's errors and logs.
func (s *WebhookServer) Name() string { return "webhook server" }

// NeedLeaderElection reports false: every replica serves webhooks, since
// the API server calls any of them through the Service.
func (s *WebhookServer) NeedLeaderElection() bool { return false }

// ConversionWebhookPath is where a [ConversionWebhook] is registered, as
// controller-runtime registers it, and what a CustomResourceDefinition's
// spec.conversion.webhook.clientConfig names.
const ConversionWebhookPath = "/convert"

// ValidatingWebhookPath is the path controller-runtime gives the
// validating webhook of a kind: "/validate-" then the group with dots
// replaced by dashes, the version and the lowercased kind, joined by
// dashes: /validate-apps-v1-deployment, and /validate--v1-configmap for
// the core group.
func ValidatingWebhookPath(gvk kube.GroupVersionKind) string { return webhookPath("validate", gvk) }

// MutatingWebhookPath is [ValidatingWebhookPath] with "/mutate-":
// /mutate-apps-v1-deployment.
func MutatingWebhookPath(gvk kube.GroupVersionKind) string { return webhookPath("mutate", gvk) }

func webhookPath(verb string, gvk kube.GroupVersionKind) string {
	return "/" + verb + "-" + strings.ReplaceAll(gvk.Group, ".", "-") + "-" + gvk.Version + "-" + strings.ToLower(gvk.Kind)
}
