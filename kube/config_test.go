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
		Host:        "https://kube.example:6443",
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
			Env:     []ExecEnvVar{{Name: "AWS_SESSION_TOKEN", Value: "env-SECRET"}},
		},
	}
	var printed []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d", "%T %v"} {
		printed = append(printed,
			fmt.Sprintf(verb, cfg), fmt.Sprintf(verb, &cfg),
			fmt.Sprintf(verb, cfg.TLS), fmt.Sprintf(verb, *cfg.Exec), fmt.Sprintf(verb, cfg.Exec))
	}
	printed = append(printed, cfg.String(), cfg.TLS.String(), cfg.Exec.String(), fmt.Sprint([]any{cfg, &cfg}))
	for _, h := range []func(*bytes.Buffer) slog.Handler{
		func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
		func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
	} {
		var b bytes.Buffer
		slog.New(h(&b)).Info("loaded", "config", cfg, "ptr", &cfg)
		printed = append(printed, b.String())
	}
	for _, s := range printed {
		if strings.Contains(s, "SECRET") {
			t.Errorf("printed config shows a secret: %s", s)
		}
	}
	// What is printed is still useful.
	for _, want := range []string{"https://kube.example:6443", "admin", "[redacted]", "AWS_SESSION_TOKEN", "<6 bytes>", "proxy.example"} {
		if s := fmt.Sprintf("%+v", cfg); !strings.Contains(s, want) {
			t.Errorf("%%+v of the config = %s, want it to show %q", s, want)
		}
	}
	var b bytes.Buffer
	slog.New(slog.NewTextHandler(&b, nil)).Info("loaded", "config", cfg)
	if !strings.Contains(b.String(), "config.host=https://kube.example:6443") || !strings.Contains(b.String(), "config.auth=token") {
		t.Errorf("slog line = %s, want the host and the kind of credential", b.String())
	}
}
