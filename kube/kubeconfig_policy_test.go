// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"strings"
	"testing"
)

// TestParseKubeconfigWith checks that the zero policy refuses each of
// the kubeconfig fields that reach into the process (a command, a file,
// plain http, no TLS verification, a proxy) with an error naming the
// field, that the field's opt-in honours it, and that what a policy
// never refuses parses under the zero policy.
func TestParseKubeconfigWith(t *testing.T) {
	const head = "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n"
	// doc is a kubeconfig whose cluster k and user u have the fields
	// given (YAML flow mappings' contents).
	doc := func(cluster, user string) []byte {
		return []byte(head + "clusters:\n- name: other\n  cluster: {server: https://other.test}\n- name: k\n  cluster: {" + cluster +
			"}\nusers:\n- name: u\n  user: {" + user + "}\n")
	}
	const server = "server: https://k.test"
	for _, tc := range []struct {
		name          string
		cluster, user string
		field         string // what the refusal names
		allow         KubeconfigPolicy
		honoured      func(*Config) bool
	}{
		{"exec", server, "exec: {command: /bin/sh, args: [-c, 'touch /tmp/marker']}", "users[0].user.exec",
			KubeconfigPolicy{AllowExec: true}, func(c *Config) bool { return c.Exec != nil && c.Exec.Command == "/bin/sh" }},
		{"token file", server, "tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token", "users[0].user.tokenFile",
			KubeconfigPolicy{AllowFiles: true}, func(c *Config) bool { return c.BearerTokenFile != "" }},
		{"client certificate file", server, "client-certificate: /etc/cert.pem, client-key-data: a2V5", "users[0].user.client-certificate",
			KubeconfigPolicy{AllowFiles: true}, func(c *Config) bool { return c.TLS.CertFile == "/etc/cert.pem" }},
		{"client key file", server, "client-certificate-data: Y2VydA==, client-key: /etc/key.pem", "users[0].user.client-key",
			KubeconfigPolicy{AllowFiles: true}, func(c *Config) bool { return c.TLS.KeyFile == "/etc/key.pem" }},
		{"certificate authority file", server + ", certificate-authority: /etc/ca.pem", "token: t", "clusters[1].cluster.certificate-authority",
			KubeconfigPolicy{AllowFiles: true}, func(c *Config) bool { return c.TLS.CAFile == "/etc/ca.pem" }},
		{"plain http", "server: http://k.test:8080", "token: t", "clusters[1].cluster.server",
			KubeconfigPolicy{AllowInsecureHTTP: true}, func(c *Config) bool { return c.Host == "http://k.test:8080" }},
		{"plain http in capitals", "server: HTTP://k.test:8080", "token: t", "clusters[1].cluster.server",
			KubeconfigPolicy{AllowInsecureHTTP: true}, func(c *Config) bool { return c.Host == "HTTP://k.test:8080" }},
		{"insecure-skip-tls-verify", server + ", insecure-skip-tls-verify: true", "token: t", "clusters[1].cluster.insecure-skip-tls-verify",
			KubeconfigPolicy{AllowInsecureSkipTLSVerify: true}, func(c *Config) bool { return c.TLS.Insecure }},
		{"proxy", server + ", proxy-url: 'http://proxy.test:3128'", "token: t", "clusters[1].cluster.proxy-url",
			KubeconfigPolicy{AllowProxy: true}, func(c *Config) bool { return c.ProxyURL == "http://proxy.test:3128" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := doc(tc.cluster, tc.user)
			_, err := ParseKubeconfigWith(data, "", KubeconfigPolicy{})
			if err == nil || !strings.Contains(err.Error(), tc.field+": refused") {
				t.Fatalf("ParseKubeconfigWith(zero policy) = %v, want an error naming %s refused", err, tc.field)
			}
			// Every other opt-in leaves it refused.
			others := KubeconfigPolicy{AllowExec: true, AllowFiles: true, AllowInsecureHTTP: true, AllowInsecureSkipTLSVerify: true, AllowProxy: true}
			switch {
			case tc.allow.AllowExec:
				others.AllowExec = false
			case tc.allow.AllowFiles:
				others.AllowFiles = false
			case tc.allow.AllowInsecureHTTP:
				others.AllowInsecureHTTP = false
			case tc.allow.AllowInsecureSkipTLSVerify:
				others.AllowInsecureSkipTLSVerify = false
			case tc.allow.AllowProxy:
				others.AllowProxy = false
			}
			if _, err := ParseKubeconfigWith(data, "", others); err == nil || !strings.Contains(err.Error(), tc.field) {
				t.Errorf("ParseKubeconfigWith(every other opt-in) = %v, want an error naming %s", err, tc.field)
			}
			cfg, err := ParseKubeconfigWith(data, "", tc.allow)
			if err != nil {
				t.Fatalf("ParseKubeconfigWith(%+v): %v", tc.allow, err)
			}
			if !tc.honoured(cfg) {
				t.Errorf("ParseKubeconfigWith(%+v) = %+v, want the field honoured", tc.allow, cfg)
			}
		})
	}

	// What is never refused: https with data, a token, basic auth; and
	// a refused field in an entry the context does not use.
	data := []byte(head + `clusters:
- name: k
  cluster: {server: 'https://k.test:6443', certificate-authority-data: Y2E=, tls-server-name: k}
- name: unused
  cluster: {server: 'http://unused.test', proxy-url: 'http://p.test'}
users:
- name: u
  user: {token: t, client-certificate-data: Y2VydA==, client-key-data: a2V5}
- name: unused
  user: {exec: {command: /bin/sh}}
`)
	cfg, err := ParseKubeconfigWith(data, "", KubeconfigPolicy{})
	if err != nil {
		t.Fatalf("ParseKubeconfigWith(https, data only): %v", err)
	}
	if cfg.Host != "https://k.test:6443" || cfg.BearerToken != "t" || string(cfg.TLS.CAData) != "ca" || string(cfg.TLS.KeyData) != "key" {
		t.Errorf("ParseKubeconfigWith(https, data only) = %+v, want its server, token, CA and key", cfg)
	}
	// Refusals still come after the errors any parse gives.
	if _, err := ParseKubeconfigWith(data, "nope", KubeconfigPolicy{}); err == nil || err.Error() != `parse kubeconfig: context "nope" not found` {
		t.Errorf("ParseKubeconfigWith(context nope) = %v, want context not found", err)
	}
	auth := []byte(head + "clusters:\n- name: k\n  cluster: {server: https://k.test}\nusers:\n- name: u\n  user: {auth-provider: {name: gcp}}\n")
	if _, err := ParseKubeconfigWith(auth, "", KubeconfigPolicy{AllowExec: true, AllowFiles: true}); err == nil || !strings.Contains(err.Error(), "auth-provider is not supported") {
		t.Errorf("ParseKubeconfigWith(auth-provider) = %v, want auth-provider not supported", err)
	}
}
