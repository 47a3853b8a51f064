// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestConfigNeverPrintsSecrets(t *testing.T) {
	cfg := Config{
		Host:        "https://admin:host-SECRET@kube.example:6443",
		BearerToken: "token-SECRET",
		Username:    "admin",
		Password:    "password-SECRET",
		ProxyURL:    "http://user:proxy-SECRET@proxy.example:3128",
		TLS: TLSConfig{
			CAData:   []byte("ca-pem"),
			CertData: []byte("cert-pem"),
			KeyData:  []byte("key-SECRET"),
		},
		Exec: &ExecConfig{
			Command: "aws",
			Args:    []string{"eks", "get-token", "--token=args-SECRET"},
			Env:     []ExecEnvVar{{Name: "AWS_SESSION_TOKEN", Value: "env-SECRET"}},
		},
	}
	values := []any{cfg, &cfg, cfg.TLS, &cfg.TLS, *cfg.Exec, cfg.Exec, cfg.Exec.Env[0], &cfg.Exec.Env[0],
		struct{ C Config }{cfg}, []any{cfg, &cfg.TLS}}
	var printed []string
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %v", "%10.3v"} {
			printed = append(printed, fmt.Sprintf(verb, v))
		}
		printed = append(printed, fmt.Sprint(v), fmt.Sprintln(v))
		for _, h := range []func(*bytes.Buffer) slog.Handler{
			func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
			func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
		} {
			var b bytes.Buffer
			slog.New(h(&b)).Info("loaded", "value", v, slog.Any("any", v), slog.Group("g", "value", v))
			printed = append(printed, b.String())
		}
	}
	printed = append(printed, cfg.String(), cfg.TLS.String(), cfg.Exec.String())
	for _, s := range printed {
		if strings.Contains(s, "SECRET") || strings.Contains(s, "a2V5LVNFQ1JFV") { // the key in base64
			t.Errorf("printed config shows a secret: %s", s)
		}
	}
	// What is printed is still useful.
	for _, want := range []string{"kube.example:6443", "admin", "[redacted]", "AWS_SESSION_TOKEN", "<6 bytes>", "proxy.example", "aws"} {
		if s := fmt.Sprintf("%+v", cfg); !strings.Contains(s, want) {
			t.Errorf("%%+v of the config = %s, want it to show %q", s, want)
		}
	}
	var b bytes.Buffer
	slog.New(slog.NewTextHandler(&b, nil)).Info("loaded", "config", cfg)
	if !strings.Contains(b.String(), "kube.example:6443") || !strings.Contains(b.String(), "config.auth=token") {
		t.Errorf("slog line = %s, want the host and the kind of credential", b.String())
	}
}

// URLs whose user info a parser misses: without a scheme, a scheme-relative
// one, a password holding "/", "#" or "?", several "@". Each holds SECRET
// in its user info only.
var oddURLs = []struct{ url, shown string }{
	{"admin:host-SECRET@1.2.3.4:6443", "[redacted]@1.2.3.4:6443"},
	{"token-SECRET@1.2.3.4:6443", "[redacted]@1.2.3.4:6443"},
	{"admin:SECRET@[::1]:6443", "[redacted]@[::1]:6443"},
	{"//admin:SECRET@kube.example:6443", "//[redacted]@kube.example:6443"},
	{"https://admin:12#SECRET@kube.example:6443", "https://[redacted]@kube.example:6443"},
	{"https://admin:SECRET/x@kube.example:6443", "https://[redacted]@kube.example:6443"},
	{"https://admin:p?SECRET@kube.example:6443", "https://[redacted]@kube.example:6443"},
	{"https://admin:p@SECRET@kube.example:6443", "https://[redacted]@kube.example:6443"},
	{"admin:p://SECRET@kube.example:6443", "[redacted]@kube.example:6443"},
	{"socks5://u:SECRET@proxy.example:1080/", "socks5://[redacted]@proxy.example:1080/"},
}

func TestRedactURL(t *testing.T) {
	for _, tt := range append(oddURLs, []struct{ url, shown string }{
		{"https://admin:SECRET@kube.example:6443/prefix", "https://[redacted]@kube.example:6443/prefix"},
		{"https://kube.example:6443", "https://kube.example:6443"},
		{"1.2.3.4:6443", "1.2.3.4:6443"},
		{"", ""},
	}...) {
		if got := redactURL(tt.url); got != tt.shown {
			t.Errorf("redactURL(%q) = %q, want %q", tt.url, got, tt.shown)
		}
	}
}

// TestConfigHidesUserInfoWhateverTheURLShape: a host or a proxy URL with
// user info is shown redacted by every verb, by slog and by JSON, and in
// the errors of NewClient and HTTPClient, whatever its shape.
func TestConfigHidesUserInfoWhateverTheURLShape(t *testing.T) {
	for _, tt := range oddURLs {
		for _, cfg := range []Config{{Host: tt.url}, {Host: "https://kube.example:6443", ProxyURL: tt.url}} {
			var printed []string
			for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
				printed = append(printed, fmt.Sprintf(verb, cfg), fmt.Sprintf(verb, &cfg))
			}
			printed = append(printed, cfg.String())
			j, err := json.Marshal(cfg)
			if err != nil {
				t.Fatal(err)
			}
			printed = append(printed, string(j))
			var b bytes.Buffer
			slog.New(slog.NewTextHandler(&b, nil)).Info("loaded", "config", cfg)
			slog.New(slog.NewJSONHandler(&b, nil)).Info("loaded", "config", cfg, "nested", struct{ C Config }{cfg})
			printed = append(printed, b.String())
			if _, err := NewClient(&cfg, ClientOptions{}); err != nil {
				printed = append(printed, err.Error())
			}
			if _, err := cfg.HTTPClient(); err != nil {
				printed = append(printed, err.Error())
			}
			for _, s := range printed {
				if strings.Contains(s, "SECRET") {
					t.Errorf("config with %q shows its user info: %s", tt.url, s)
				}
			}
			if s := fmt.Sprint(cfg); !strings.Contains(s, tt.shown) {
				t.Errorf("config with %q prints as %s, want it to show %q", tt.url, s, tt.shown)
			}
		}
	}
}
