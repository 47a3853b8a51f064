// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestInClusterConfig(t *testing.T) {
	tests := []struct {
		name    string
		host    string
		files   map[string]string // under the service account directory
		want    func(dir string) Config
		wantErr string
	}{
		{
			name:  "token, CA and namespace",
			host:  "10.96.0.1",
			files: map[string]string{"token": "tok\n", "ca.crt": "pem", "namespace": "kube-system\n"},
			want: func(dir string) Config {
				return Config{
					Host: "https://10.96.0.1:443", Namespace: "kube-system",
					BearerTokenFile: filepath.Join(dir, "token"),
					TLS:             TLSConfig{CAFile: filepath.Join(dir, "ca.crt")},
				}
			},
		},
		{
			name:  "IPv6 host is bracketed, no CA or namespace",
			host:  "fd00:10:96::1",
			files: map[string]string{"token": "tok"},
			want: func(dir string) Config {
				return Config{Host: "https://[fd00:10:96::1]:443", BearerTokenFile: filepath.Join(dir, "token")}
			},
		},
		{
			name:    "missing token",
			host:    "10.96.0.1",
			files:   map[string]string{"ca.crt": "pem"},
			wantErr: "read service account token",
		},
		{
			name:    "empty token",
			host:    "10.96.0.1",
			files:   map[string]string{"token": "\n"},
			wantErr: "is empty",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, serviceAccountDir)
			for name, content := range tt.files {
				writeFile(t, filepath.Join(dir, name), content)
			}
			env := map[string]string{"KUBERNETES_SERVICE_HOST": tt.host, "KUBERNETES_SERVICE_PORT": "443"}
			got, err := inClusterConfig(root, func(k string) string { return env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("inClusterConfig() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("inClusterConfig() error: %v", err)
			}
			if want := tt.want(dir); !reflect.DeepEqual(*got, want) {
				t.Errorf("inClusterConfig() = %s, want %s", unredacted(*got), unredacted(want))
			}
		})
	}
}

// TestInClusterConfigOutsideACluster: a program run outside a pod (no
// KUBERNETES_SERVICE_HOST) gets an error it can test for, and no config.
func TestInClusterConfigOutsideACluster(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "443")
	cfg, err := InClusterConfig()
	if !errors.Is(err, ErrNotInCluster) || cfg != nil {
		t.Errorf("InClusterConfig outside a pod = %v, %v; want nil and an error wrapping ErrNotInCluster", cfg, err)
	}
}
