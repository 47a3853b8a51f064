// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"strings"
	"testing"
)

func TestParseKubeconfig(t *testing.T) {
	const doc = `apiVersion: v1
kind: Config
clusters:
- name: one
  cluster:
    server: https://one.example:6443
- name: two
  cluster:
    server: https://two.example:6443
users:
- name: u
  user:
    token: sekret
contexts:
- name: one
  context: {cluster: one, user: u, namespace: apps}
- name: two
  context: {cluster: two, user: u}
current-context: one
`
	for _, tc := range []struct {
		context, host, ns, err string
	}{
		{"", "https://one.example:6443", "apps", ""},
		{"two", "https://two.example:6443", "", ""},
		{"three", "", "", `parse kubeconfig: context "three" not found`},
	} {
		cfg, err := ParseKubeconfig([]byte(doc), tc.context)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseKubeconfig(%q) = %v, want error %q", tc.context, err, tc.err)
			}
		case err != nil:
			t.Errorf("ParseKubeconfig(%q): %v", tc.context, err)
		case cfg.Host != tc.host || cfg.Namespace != tc.ns || cfg.BearerToken != "sekret":
			t.Errorf("ParseKubeconfig(%q) = host %q namespace %q, want %q %q and the user's token", tc.context, cfg.Host, cfg.Namespace, tc.host, tc.ns)
		}
	}
	_, err := ParseKubeconfig([]byte("clusters: [\n  token: sekret"), "")
	if err == nil || strings.Contains(err.Error(), "sekret") {
		t.Errorf("ParseKubeconfig of a broken document = %v, want an error that quotes no secret", err)
	}
}
