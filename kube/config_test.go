// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
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
