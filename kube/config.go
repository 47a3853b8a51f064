// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"net/http"
	"time"
)

// Config says how to reach and authenticate to an API server. Load one with
// [LoadConfig], or fill it by hand. The zero values of the optional fields
// mean: verify TLS with the system roots, no credentials, default rate limit.
type Config struct {
	// Host is the server's base URL, for example "https://127.0.0.1:6443".
	Host string
	// Namespace is the default namespace of the kubeconfig context or of the
	// in-cluster service account; empty means "default".
	Namespace string

	// BearerToken is sent as "Authorization: Bearer ...".
	BearerToken string
	// BearerTokenFile is read for the token, and re-read at least every
	// minute (in-cluster tokens rotate). It wins over BearerToken.
	BearerTokenFile string
	// Username and Password are sent as HTTP basic auth.
	Username, Password string
	// Exec runs a credential plugin for the token or client certificate.
	Exec *ExecConfig

	TLS TLSConfig

	// ProxyURL is the proxy every request goes through ("http", "https" or
	// "socks5"); empty means none (not even the environment's).
	ProxyURL string

	// QPS and Burst bound the client's request rate with a token bucket.
	// Zero means the defaults (20 QPS, burst 30, as controller-runtime); a
	// negative QPS turns the limit off.
	QPS   float64
	Burst int
	// Timeout bounds each request except watches; zero means none.
	Timeout time.Duration
	// UserAgent is sent with every request; empty means "kubeloop".
	UserAgent string

	// Transport, when set, carries requests instead of a transport built
	// from TLS and ProxyURL (kube/kubetest sets it to its in-process
	// transport). Authentication is still added on top of it.
	Transport http.RoundTripper
}

// TLSConfig holds the TLS settings of a [Config]. File fields are reloaded
// when the files change; Data fields win over File fields.
type TLSConfig struct {
	// Insecure skips verification of the server's certificate.
	Insecure bool
	// ServerName overrides the name checked in the server's certificate.
	ServerName string
	CAFile     string
	CAData     []byte
	CertFile   string
	CertData   []byte
	KeyFile    string
	KeyData    []byte
}

// ExecConfig runs a client.authentication.k8s.io/v1 credential plugin, as
// the users[].user.exec section of a kubeconfig describes it.
type ExecConfig struct {
	Command    string
	Args       []string
	Env        []ExecEnvVar
	APIVersion string
	// InteractiveMode is "Never", "IfAvailable" or "Always"; kubeloop never
	// has a terminal, so "Always" fails.
	InteractiveMode    string
	ProvideClusterInfo bool
	// InstallHint is shown when the command cannot be found.
	InstallHint string
}

// ExecEnvVar is one environment variable given to a credential plugin.
type ExecEnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}
