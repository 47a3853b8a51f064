// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// This file keeps the secrets of a Config out of text: fmt (every verb),
// slog (text and JSON handlers, through LogValue) and encoding/json
// (through MarshalJSON, which slog's JSON handler uses for a Config nested
// in another value). Secrets are the bearer token, the password, the
// client key, the plugin's arguments (a token is often passed as one) and
// environment values, and the user info of a URL. What is shown instead is
// "[redacted]" when the secret is set, and PEM data by its size.
//
// The JSON of a Config is for logs: it cannot be decoded back.

// redacted replaces a secret that is set.
const redacted = "[redacted]"

// redact returns s, or [redacted] when s is set.
func redact(s string) string {
	if s == "" {
		return ""
	}
	return redacted
}

// redactURL hides the user info of a URL ("user:password@"), which may
// hold a password or a token, whatever the URL's shape: everything between
// the scheme's "://" (or the start, when there is no scheme) and the last
// "@" becomes [redacted]. Parsing is not trusted here: a URL without a
// scheme ("admin:pw@10.0.0.1:6443") parses as the scheme "admin", and a
// password holding "/" or "#" moves what the parser takes for the host. A
// string without "@" has no user info and is returned whole.
func redactURL(s string) string {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return s
	}
	start := 0
	if i := strings.Index(s, "://"); i >= 0 && i < at && isScheme(s[:i]) {
		start = i + len("://")
	} else if strings.HasPrefix(s, "//") {
		start = len("//")
	}
	return s[:start] + redacted + s[at:]
}

// urlParseReason is the reason url.Parse gave for raw, for an error
// message: without the *url.Error around it (which quotes raw whole), and
// not even the reason when raw has user info, for a reason may quote a
// part of it (`invalid port ":pa" after host`).
func urlParseReason(raw string, err error) error {
	if strings.Contains(raw, "@") {
		return errors.New("not a URL")
	}
	if ue, ok := errs.As[*url.Error](err); ok {
		return ue.Err
	}
	return err
}

// isScheme reports whether s is a URL scheme (RFC 3986 section 3.1):
// a letter, then letters, digits, "+", "-" or ".".
func isScheme(s string) bool {
	for i, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
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

// config has the fields of Config without its methods.
type config Config

// redacted returns c with its own secrets replaced. TLS and Exec hide
// theirs when printed, encoded or logged.
func (c Config) redacted() config {
	c.Host = redactURL(c.Host)
	c.BearerToken = redact(c.BearerToken)
	c.Password = redact(c.Password)
	c.ProxyURL = redactURL(c.ProxyURL)
	if c.Exec != nil {
		e := *c.Exec
		c.Exec = &e // printed by its own methods
	}
	c.Transport = nil // not data; it may not even encode
	return config(c)
}

// Format prints c field by field with its secrets replaced by
// "[redacted]", whatever the verb.
func (c Config) Format(f fmt.State, verb rune) { formatPlain(f, verb, c.redacted()) }

// String returns c as %v prints it, secrets redacted.
func (c Config) String() string { return fmt.Sprint(c) }

// MarshalJSON encodes c field by field with its secrets redacted, for logs.
func (c Config) MarshalJSON() ([]byte, error) { return json.Marshal(c.redacted()) }

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
	attrs := []slog.Attr{slog.String("host", redactURL(c.Host)), slog.String("auth", auth)}
	if c.Namespace != "" {
		attrs = append(attrs, slog.String("namespace", c.Namespace))
	}
	if c.TLS.Insecure {
		attrs = append(attrs, slog.Bool("insecure", true))
	}
	if c.ProxyURL != "" {
		attrs = append(attrs, slog.String("proxy", redactURL(c.ProxyURL)))
	}
	if c.Exec != nil {
		attrs = append(attrs, slog.String("exec", c.Exec.Command))
	}
	return slog.GroupValue(attrs...)
}

// tlsShape is what a TLSConfig shows: the key redacted, PEM data by size.
type tlsShape struct {
	Insecure           bool
	ServerName         string
	CAFile, CAData     string
	CertFile, CertData string
	KeyFile, KeyData   string
}

func (t TLSConfig) shape() tlsShape {
	key := ""
	if t.KeyData != nil {
		key = redacted
	}
	return tlsShape{
		Insecure: t.Insecure, ServerName: t.ServerName,
		CAFile: t.CAFile, CAData: byteCount(t.CAData),
		CertFile: t.CertFile, CertData: byteCount(t.CertData),
		KeyFile: t.KeyFile, KeyData: key,
	}
}

// Format prints t with the key redacted and PEM data shown by size,
// whatever the verb.
func (t TLSConfig) Format(f fmt.State, verb rune) { formatPlain(f, verb, t.shape()) }

// String returns t as %v prints it, the key redacted.
func (t TLSConfig) String() string { return fmt.Sprint(t) }

// MarshalJSON encodes t as Format prints it, for logs.
func (t TLSConfig) MarshalJSON() ([]byte, error) { return json.Marshal(t.shape()) }

// LogValue lets slog log t as Format prints it, without its empty fields.
func (t TLSConfig) LogValue() slog.Value {
	s := t.shape()
	var attrs []slog.Attr
	if s.Insecure {
		attrs = append(attrs, slog.Bool("insecure", true))
	}
	for _, a := range []struct{ key, value string }{
		{"serverName", s.ServerName}, {"caFile", s.CAFile}, {"caData", s.CAData},
		{"certFile", s.CertFile}, {"certData", s.CertData}, {"keyFile", s.KeyFile}, {"keyData", s.KeyData},
	} {
		if a.value != "" {
			attrs = append(attrs, slog.String(a.key, a.value))
		}
	}
	return slog.GroupValue(attrs...)
}

// execConfig has the fields of ExecConfig without its methods.
type execConfig ExecConfig

// redacted returns e with every argument and environment value redacted.
func (e ExecConfig) redacted() execConfig {
	if e.Args != nil {
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = redact(a)
		}
		e.Args = args
	}
	if e.Env != nil {
		env := make([]ExecEnvVar, len(e.Env))
		for i, v := range e.Env {
			env[i] = ExecEnvVar{Name: v.Name, Value: redact(v.Value)}
		}
		e.Env = env
	}
	return execConfig(e)
}

// Format prints e with its arguments and the values of Env redacted,
// whatever the verb.
func (e ExecConfig) Format(f fmt.State, verb rune) { formatPlain(f, verb, e.redacted()) }

// String returns e as %v prints it, arguments and environment values
// redacted.
func (e ExecConfig) String() string { return fmt.Sprint(e) }

// MarshalJSON encodes e as Format prints it, for logs.
func (e ExecConfig) MarshalJSON() ([]byte, error) { return json.Marshal(e.redacted()) }

// LogValue lets slog log e without its secrets: the command, the number
// of arguments and the names of the environment variables.
func (e ExecConfig) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("command", e.Command), slog.Int("args", len(e.Args))}
	if len(e.Env) > 0 {
		names := make([]string, len(e.Env))
		for i, v := range e.Env {
			names[i] = v.Name
		}
		attrs = append(attrs, slog.String("env", strings.Join(names, ",")))
	}
	if e.APIVersion != "" {
		attrs = append(attrs, slog.String("apiVersion", e.APIVersion))
	}
	if e.ProvideClusterInfo {
		attrs = append(attrs, slog.Bool("provideClusterInfo", true))
	}
	return slog.GroupValue(attrs...)
}

// execEnvVar has the fields of ExecEnvVar without its methods.
type execEnvVar ExecEnvVar

// Format prints v with its value redacted, whatever the verb.
func (v ExecEnvVar) Format(f fmt.State, verb rune) {
	formatPlain(f, verb, execEnvVar{Name: v.Name, Value: redact(v.Value)})
}

// MarshalJSON encodes v with its value redacted, for logs.
func (v ExecEnvVar) MarshalJSON() ([]byte, error) {
	return json.Marshal(execEnvVar{Name: v.Name, Value: redact(v.Value)})
}

// LogValue lets slog log v with its value redacted.
func (v ExecEnvVar) LogValue() slog.Value {
	return slog.GroupValue(slog.String("name", v.Name), slog.String("value", redact(v.Value)))
}
