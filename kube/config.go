// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"net/http"
	"time"
)

// Config says how to reach and authenticate to an API server. Load one with
// [LoadConfig] or [InClusterConfig], or fill it by hand. The zero values of
// the optional fields mean: verify TLS with the system roots, no
// credentials, default rate limit. [Config.HTTPClient] turns it into the
// client that carries requests.
//
// Printing a Config with any fmt verb, logging it with slog (text or JSON,
// alone or inside another value) or encoding it as JSON never shows
// BearerToken, Password, TLS.KeyData, Exec.Args, the values of Exec.Env or
// the user info of Host and ProxyURL.
//
// Credentials: a bearer token (BearerTokenFile, else BearerToken) or basic
// auth (Username and Password) is sent in the Authorization header, to
// Host only (see [Config.HTTPClient] on redirects); setting both kinds is
// an error. A client certificate in TLS is presented whenever
// the server asks for one. Exec is used only when none of these is set (as
// kubectl does).
type Config struct {
	// Host is the server's base URL, for example "https://127.0.0.1:6443".
	Host string
	// Namespace is the default namespace of the kubeconfig context or of the
	// in-cluster service account; empty means "default".
	Namespace string

	// BearerToken is sent as "Authorization: Bearer ...".
	BearerToken string
	// BearerTokenFile is read for the token, and read again when its size
	// or modification time changes and at least every minute (in-cluster
	// tokens rotate). It wins over BearerToken, which is used only while
	// the file cannot be read.
	BearerTokenFile string
	// Username and Password are sent as HTTP basic auth.
	Username, Password string
	// Exec runs a credential plugin for the token or client certificate.
	Exec *ExecConfig

	TLS TLSConfig

	// ProxyURL is the proxy every request goes through ("http", "https" or
	// "socks5"); empty means none (not even the environment's).
	ProxyURL string

	// QPS and Burst bound the client's request rate with a token bucket
	// of Burst requests (at least 1) refilled at QPS a second, when QPS is
	// positive. Zero (the default) or negative means no client-side
	// limit, as controller-runtime's clients since v0.21: the API
	// server's Priority and Fairness shares its capacity among clients
	// and answers 429 when a client asks too much, which the client
	// retries after the server's Retry-After.
	QPS   float64
	Burst int
	// Timeout bounds each request except watches, its answer's body
	// included. Zero means no bound on the body (a long list streams for
	// as long as it takes), but a request that is not a watch still
	// gives up when its answer's headers have not come within
	// [HeaderTimeout] (70 s).
	Timeout time.Duration
	// MaxConnections bounds the connections the client's requests hold
	// open to the server at once, watches aside (they have a pool of
	// their own): a request beyond it waits for a connection to come
	// free, within its context. Zero means [DefaultMaxConnections] (64);
	// negative means no bound. It applies to the transport built from
	// TLS and ProxyURL, not to Transport.
	MaxConnections int
	// UserAgent is sent with every request; empty means "kubeloop".
	UserAgent string

	// Transport, when set, carries requests instead of a transport built
	// from TLS and ProxyURL (kube/kubetest sets it to its in-process
	// transport). Authentication is still added on top of it.
	Transport http.RoundTripper
}

// TLSConfig holds the TLS settings of a [Config]. Data fields (PEM) win
// over File fields. Files are read when [Config.HTTPClient] is called, and
// read again when their size or modification time changes: the CA file at
// each new connection, the certificate and key files at each new connection
// that the server asks for a client certificate. Connections already open
// keep what they were opened with.
type TLSConfig struct {
	// Insecure skips verification of the server's certificate; it cannot be
	// combined with a CA.
	Insecure bool
	// ServerName overrides the name checked in the server's certificate
	// (and sent as SNI); empty means the host of Config.Host.
	ServerName string
	// CAFile and CAData hold the PEM certificates that sign the server's
	// certificate; neither means the system roots.
	CAFile string
	CAData []byte
	// CertFile or CertData, with KeyFile or KeyData, hold the PEM client
	// certificate and its key. The key is a secret: it is never printed.
	CertFile string
	CertData []byte
	KeyFile  string
	KeyData  []byte
}

// ExecConfig runs a client.authentication.k8s.io/v1 credential plugin, as
// the users[].user.exec section of a kubeconfig describes it. See
// [Config.HTTPClient] for when the plugin runs, for how long at most, and
// where its standard error goes.
type ExecConfig struct {
	// Command is the program to run: a name looked up in PATH, or a path.
	Command string
	Args    []string
	// Env is added to the environment of the current process; the values
	// may be secrets and are never printed.
	Env []ExecEnvVar
	// APIVersion is the ExecCredential version the plugin speaks:
	// "client.authentication.k8s.io/v1" (the default when empty) or
	// "client.authentication.k8s.io/v1beta1".
	APIVersion string
	// InteractiveMode is "Never", "IfAvailable" or "Always"; kubeloop never
	// has a terminal, so "Always" fails.
	InteractiveMode string
	// ProvideClusterInfo passes the server's address, TLS settings and CA
	// to the plugin in KUBERNETES_EXEC_INFO.
	ProvideClusterInfo bool
	// InstallHint is shown when the command cannot be found.
	InstallHint string
}

// ExecEnvVar is one environment variable given to a credential plugin.
type ExecEnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}
