// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// Config says how to reach and authenticate to an API server. Load one with
// [LoadConfig] or [InClusterConfig], or fill it by hand. The zero values of
// the optional fields mean: verify TLS with the system roots, no
// credentials, default rate limit. [Config.HTTPClient] turns it into the
// client that carries requests.
//
// Printing a Config with any fmt verb, or logging it with slog, never shows
// BearerToken, Password, TLS.KeyData, the values of Exec.Env or the
// password of ProxyURL.
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
// [Config.HTTPClient] for when the plugin runs.
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

// redacted replaces a secret that is set.
const redacted = "[redacted]"

// redact returns s, or [redacted] when s is set.
func redact(s string) string {
	if s == "" {
		return ""
	}
	return redacted
}

// redactURL hides the password in a URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return redact(s)
	}
	return u.Redacted()
}

// byteCount describes PEM data by its size.
func byteCount(b []byte) string {
	if b == nil {
		return ""
	}
	return fmt.Sprintf("<%d bytes>", len(b))
}

// formatPlain prints v, a struct without methods, honouring %v, %+v and
// %#v; other verbs print as %v.
func formatPlain(f fmt.State, verb rune, v any) {
	switch {
	case verb == 'v' && f.Flag('#'):
		fmt.Fprintf(f, "%#v", v)
	case f.Flag('+'):
		fmt.Fprintf(f, "%+v", v)
	default:
		fmt.Fprintf(f, "%v", v)
	}
}

// Format prints c field by field with its secrets replaced by
// "[redacted]", whatever the verb.
func (c Config) Format(f fmt.State, verb rune) {
	type config Config // the same fields, without this method
	c.BearerToken = redact(c.BearerToken)
	c.Password = redact(c.Password)
	c.ProxyURL = redactURL(c.ProxyURL)
	formatPlain(f, verb, config(c))
}

// String returns c as %v prints it, secrets redacted.
func (c Config) String() string { return fmt.Sprint(c) }

// LogValue lets slog log a Config without its secrets: the host, the
// namespace, and which kind of credential it holds.
func (c Config) LogValue() slog.Value {
	auth := "none"
	switch {
	case c.BearerTokenFile != "":
		auth = "token-file"
	case c.BearerToken != "":
		auth = "token"
	case c.Username != "" || c.Password != "":
		auth = "basic"
	case c.TLS.CertFile != "" || c.TLS.CertData != nil:
		auth = "client-certificate"
	case c.Exec != nil:
		auth = "exec"
	}
	attrs := []slog.Attr{slog.String("host", c.Host), slog.String("auth", auth)}
	if c.Namespace != "" {
		attrs = append(attrs, slog.String("namespace", c.Namespace))
	}
	if c.TLS.Insecure {
		attrs = append(attrs, slog.Bool("insecure", true))
	}
	if c.ProxyURL != "" {
		attrs = append(attrs, slog.String("proxy", redactURL(c.ProxyURL)))
	}
	return slog.GroupValue(attrs...)
}

// Format prints t with the key redacted and PEM data shown by size,
// whatever the verb.
func (t TLSConfig) Format(f fmt.State, verb rune) {
	type tlsConfig struct {
		Insecure           bool
		ServerName         string
		CAFile, CAData     string
		CertFile, CertData string
		KeyFile, KeyData   string
	}
	key := ""
	if t.KeyData != nil {
		key = redacted
	}
	formatPlain(f, verb, tlsConfig{
		Insecure: t.Insecure, ServerName: t.ServerName,
		CAFile: t.CAFile, CAData: byteCount(t.CAData),
		CertFile: t.CertFile, CertData: byteCount(t.CertData),
		KeyFile: t.KeyFile, KeyData: key,
	})
}

// String returns t as %v prints it, the key redacted.
func (t TLSConfig) String() string { return fmt.Sprint(t) }

// Format prints e with the values of Env redacted, whatever the verb.
func (e ExecConfig) Format(f fmt.State, verb rune) {
	type execConfig ExecConfig // the same fields, without this method
	env := make([]ExecEnvVar, len(e.Env))
	for i, v := range e.Env {
		env[i] = ExecEnvVar{Name: v.Name, Value: redact(v.Value)}
	}
	if e.Env == nil {
		env = nil
	}
	e.Env = env
	formatPlain(f, verb, execConfig(e))
}

// String returns e as %v prints it, the environment values redacted.
func (e ExecConfig) String() string { return fmt.Sprint(e) }
