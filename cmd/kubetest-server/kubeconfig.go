// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// kubeconfigYAML renders a kubeconfig in the plain block style kubectl
// writes: keys in order, one context, cluster and user named kubetest.
func kubeconfigYAML(server string, caPEM []byte, token string) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nclusters:\n- cluster:\n")
	if len(caPEM) > 0 {
		b.WriteString("    certificate-authority-data: " + base64.StdEncoding.EncodeToString(caPEM) + "\n")
	}
	b.WriteString("    server: " + server + "\n")
	b.WriteString("  name: kubetest\n")
	b.WriteString("contexts:\n- context:\n    cluster: kubetest\n    namespace: default\n    user: kubetest-admin\n  name: kubetest\n")
	b.WriteString("current-context: kubetest\nkind: Config\npreferences: {}\n")
	b.WriteString("users:\n- name: kubetest-admin\n  user:\n    token: " + token + "\n")
	return b.String()
}

// writeKubeconfig writes the kubeconfig to path, readable by its owner
// only (it holds a token), making the directory if needed.
func writeKubeconfig(path, server string, caPEM []byte, token string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(kubeconfigYAML(server, caPEM, token)), 0o600); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}
