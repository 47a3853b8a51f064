// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testdataKubeconfig returns the absolute path of a file in
// testdata/kubeconfig.
func testdataKubeconfig(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "kubeconfig", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// testEnv is a loadEnv with the given variables, a home directory and an
// in-cluster root, none of which holds anything unless the test puts it
// there.
func testEnv(t *testing.T, vars map[string]string) (loadEnv, string, string) {
	home, root := t.TempDir(), t.TempDir()
	return loadEnv{
		getenv: func(k string) string { return vars[k] },
		home:   func() (string, error) { return home, nil },
		root:   root,
	}, home, root
}

func TestLoadConfigKubeconfigFiles(t *testing.T) {
	dir := testdataKubeconfig(t, "")
	join := func(names ...string) string {
		var ps []string
		for _, n := range names {
			ps = append(ps, filepath.Join(dir, n))
		}
		return strings.Join(ps, string(os.PathListSeparator))
	}
	tests := []struct {
		name       string
		path       string // LoadOptions.Path
		kubeconfig string // $KUBECONFIG
		context    string
		want       Config
	}{
		{
			name: "kubectl layout, relative CA path, namespace",
			path: filepath.Join(dir, "basic.yaml"),
			want: Config{
				Host: "https://127.0.0.1:6443", Namespace: "team-a", BearerToken: "s3cret-token",
				TLS: TLSConfig{CAFile: filepath.Join(dir, "certs", "ca.crt")},
			},
		},
		{
			name: "base64 data, folded base64, flow context, IPv6 server, proxy",
			path: filepath.Join(dir, "data.yaml"),
			want: Config{
				Host: "https://[fd00::1]:443", ProxyURL: "http://proxy.example:3128",
				TLS: TLSConfig{
					ServerName: "kube.internal", CAData: []byte("ca-bytes"),
					CertData: []byte("cert-bytes"), KeyData: []byte("key-bytes"),
				},
			},
		},
		{
			name: "current-context with basic auth and insecure",
			path: filepath.Join(dir, "contexts.yaml"),
			want: Config{Host: "https://dev.example:6443", Username: "admin", Password: "hunter2", TLS: TLSConfig{Insecure: true}},
		},
		{
			name:    "context override with relative token and cert paths",
			path:    filepath.Join(dir, "contexts.yaml"),
			context: "prod",
			want: Config{
				Host: "https://prod.example:6443", Namespace: "production",
				BearerTokenFile: filepath.Join(filepath.Dir(dir), "tokens", "robot"),
				TLS: TLSConfig{
					CAFile:   "/etc/prod/ca.crt",
					CertFile: filepath.Join(dir, "robot.crt"), KeyFile: filepath.Join(dir, "robot.key"),
				},
			},
		},
		{
			name:    "context without a user",
			path:    filepath.Join(dir, "contexts.yaml"),
			context: "anonymous",
			want:    Config{Host: "https://dev.example:6443", TLS: TLSConfig{Insecure: true}},
		},
		{
			name:       "KUBECONFIG merge: first definition of a name wins, current-context from the first file that sets it",
			kubeconfig: join("merge-a.yaml", "missing.yaml", "merge-b.yaml"),
			want:       Config{Host: "https://a.example", Namespace: "nb", BearerToken: "token-b"},
		},
		{
			name:       "KUBECONFIG merge in the other order",
			kubeconfig: join("merge-b.yaml", "merge-a.yaml"),
			want:       Config{Host: "https://b.example", Namespace: "nb", BearerToken: "token-b"},
		},
		{
			name:       "KUBECONFIG merge with a context override",
			kubeconfig: join("merge-a.yaml", "merge-b.yaml"),
			context:    "ctx-a",
			want:       Config{Host: "https://a.example", BearerToken: "token-a"},
		},
		{
			name:       "KUBECONFIG with empty entries and a duplicate",
			kubeconfig: string(os.PathListSeparator) + join("basic.yaml", "basic.yaml"),
			want: Config{
				Host: "https://127.0.0.1:6443", Namespace: "team-a", BearerToken: "s3cret-token",
				TLS: TLSConfig{CAFile: filepath.Join(dir, "certs", "ca.crt")},
			},
		},
		{
			name: "exec plugin, relative command, folded install hint",
			path: filepath.Join(dir, "exec.yaml"),
			want: Config{
				Host: "https://34.1.2.3", TLS: TLSConfig{CAData: []byte("ca")},
				Exec: &ExecConfig{
					Command:         filepath.Join(dir, "bin", "auth-plugin"),
					Args:            []string{"get-token", "--cluster=gke"},
					Env:             []ExecEnvVar{{Name: "PLUGIN_MODE", Value: "quiet"}},
					APIVersion:      "client.authentication.k8s.io/v1beta1",
					InstallHint:     "Install gke-gcloud-auth-plugin for use with kubectl by following https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin",
					InteractiveMode: "Never", ProvideClusterInfo: true,
				},
			},
		},
		{
			name: "JSON kubeconfig",
			path: filepath.Join(dir, "kubeconfig.json"),
			want: Config{
				Host: "https://json.example", Namespace: "js", TLS: TLSConfig{Insecure: true},
				Exec: &ExecConfig{Command: "aws", Args: []string{"eks", "get-token"}, APIVersion: "client.authentication.k8s.io/v1"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _, _ := testEnv(t, map[string]string{"KUBECONFIG": tt.kubeconfig})
			got, err := loadConfig(LoadOptions{Path: tt.path, Context: tt.context}, env)
			if err != nil {
				t.Fatalf("loadConfig(%q, %q, KUBECONFIG=%q) error: %v", tt.path, tt.context, tt.kubeconfig, err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("loadConfig(%q, %q, KUBECONFIG=%q) =\n%#v\nwant\n%#v", tt.path, tt.context, tt.kubeconfig,
					unredacted(*got), unredacted(tt.want))
			}
		})
	}
}

// unredacted prints the fields of c, secrets included, for test failures.
func unredacted(c Config) string {
	type plain Config
	type plainExec ExecConfig
	s := fmt.Sprintf("%+v", plain(c))
	if c.Exec != nil {
		s += fmt.Sprintf("\nExec: %+v", plainExec(*c.Exec))
	}
	return s
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		file, context string
		want          []string // substrings of the error
	}{
		{"bad-indent.yaml", "", []string{"bad-indent.yaml", "line 6", "unexpected indentation"}},
		{"block-scalar.yaml", "", []string{"block-scalar.yaml", "line 5", "block scalars (|) are not supported"}},
		{"tab.yaml", "", []string{"tab.yaml", "line 4", "tabs are not allowed"}},
		{"clusters-mapping.yaml", "", []string{"clusters-mapping.yaml", "line 4", "clusters: expected a sequence, found a mapping"}},
		{"cluster-sequence.yaml", "", []string{"line 4", "clusters[0].cluster: expected a mapping, found a sequence"}},
		{"bad-base64.yaml", "", []string{"bad-base64.yaml", "line 9", "users[0].user.client-key-data: invalid base64"}},
		{"bad-bool.yaml", "", []string{"line 5", "insecure-skip-tls-verify: expected true or false"}},
		{"no-name.yaml", "", []string{"line 2", "users[0]: missing name"}},
		{"exec-no-command.yaml", "", []string{"line 5", "users[0].user.exec.command: missing"}},
		{"secret-in-bad-line.yaml", "", []string{"line 4", "users[0].user: expected a mapping, found a scalar"}},
		{"missing-context.yaml", "", []string{"missing-context.yaml", `context "nope" not found`}},
		{"basic.yaml", "other", []string{"basic.yaml", `context "other" not found`}},
		{"missing-cluster.yaml", "", []string{"missing-cluster.yaml: line 3: context", `cluster "gone" not found`}},
		{"missing-user.yaml", "", []string{"missing-user.yaml: line 7: context", `user "ghost" not found`}},
		{"no-server.yaml", "", []string{"no-server.yaml: line 3: cluster", `cluster "c" has no server`}},
		{"auth-provider.yaml", "", []string{`user "oidc": auth-provider is not supported`}},
		{"impersonate.yaml", "", []string{`user "u": as is not supported`}},
		{"empty.yaml", "", []string{"empty.yaml", "no current-context"}},
		{"does-not-exist.yaml", "", []string{"does-not-exist.yaml", "no such file"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			env, _, _ := testEnv(t, nil)
			path := testdataKubeconfig(t, tt.file)
			_, err := loadConfig(LoadOptions{Path: path, Context: tt.context}, env)
			if err == nil {
				t.Fatalf("loadConfig(%s) = nil error, want %q", tt.file, tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("loadConfig(%s) error = %q, want it to contain %q", tt.file, err, w)
				}
			}
			for _, secret := range []string{"super-secret-value", "secret-id-token", "AAAA"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("loadConfig(%s) error = %q: it quotes a secret", tt.file, err)
				}
			}
		})
	}
}

func TestLoadConfigSearchOrder(t *testing.T) {
	basic := testdataKubeconfig(t, "basic.yaml")
	data, err := os.ReadFile(basic)
	if err != nil {
		t.Fatal(err)
	}
	inCluster := map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}

	t.Run("nothing found names what was tried", func(t *testing.T) {
		env, home, _ := testEnv(t, nil)
		_, err := loadConfig(LoadOptions{}, env)
		if err == nil {
			t.Fatal("loadConfig with nothing configured succeeded, want an error")
		}
		for _, w := range []string{"KUBECONFIG", "in-cluster", filepath.Join(home, ".kube", "config")} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("loadConfig error = %q, want it to mention %q", err, w)
			}
		}
	})
	t.Run("KUBECONFIG lists only missing files", func(t *testing.T) {
		env, _, _ := testEnv(t, map[string]string{"KUBECONFIG": "/nonexistent/a"})
		if _, err := loadConfig(LoadOptions{}, env); err == nil || !strings.Contains(err.Error(), "KUBECONFIG") {
			t.Errorf("loadConfig error = %v, want one that mentions KUBECONFIG", err)
		}
	})
	t.Run("home kubeconfig", func(t *testing.T) {
		env, home, _ := testEnv(t, nil)
		writeFile(t, filepath.Join(home, ".kube", "config"), string(data))
		cfg, err := loadConfig(LoadOptions{}, env)
		if err != nil || cfg.Host != "https://127.0.0.1:6443" {
			t.Fatalf("loadConfig = %v, %v, want the home kubeconfig", cfg, err)
		}
		// A relative path resolves against ~/.kube, where the file is.
		if want := filepath.Join(home, ".kube", "certs", "ca.crt"); cfg.TLS.CAFile != want {
			t.Errorf("CAFile = %q, want %q", cfg.TLS.CAFile, want)
		}
	})
	t.Run("in-cluster before home", func(t *testing.T) {
		env, home, root := testEnv(t, inCluster)
		writeFile(t, filepath.Join(home, ".kube", "config"), string(data))
		writeFile(t, filepath.Join(root, serviceAccountDir, "token"), "tok\n")
		cfg, err := loadConfig(LoadOptions{}, env)
		if err != nil || cfg.Host != "https://10.0.0.1:443" {
			t.Fatalf("loadConfig = %v, %v, want the in-cluster config", cfg, err)
		}
	})
	t.Run("a context skips in-cluster", func(t *testing.T) {
		env, home, root := testEnv(t, inCluster)
		writeFile(t, filepath.Join(home, ".kube", "config"), string(data))
		writeFile(t, filepath.Join(root, serviceAccountDir, "token"), "tok\n")
		cfg, err := loadConfig(LoadOptions{Context: "kind-kind"}, env)
		if err != nil || cfg.Host != "https://127.0.0.1:6443" {
			t.Fatalf("loadConfig = %v, %v, want the home kubeconfig", cfg, err)
		}
	})
	t.Run("broken in-cluster falls through to home", func(t *testing.T) {
		env, home, _ := testEnv(t, inCluster) // no token file
		writeFile(t, filepath.Join(home, ".kube", "config"), string(data))
		cfg, err := loadConfig(LoadOptions{}, env)
		if err != nil || cfg.Host != "https://127.0.0.1:6443" {
			t.Fatalf("loadConfig = %v, %v, want the home kubeconfig", cfg, err)
		}
	})
	t.Run("broken in-cluster is reported when nothing else exists", func(t *testing.T) {
		env, _, _ := testEnv(t, inCluster)
		_, err := loadConfig(LoadOptions{}, env)
		if err == nil || !strings.Contains(err.Error(), "service account token") {
			t.Errorf("loadConfig error = %v, want it to say the token is missing", err)
		}
	})
	t.Run("KUBECONFIG before in-cluster, path before KUBECONFIG", func(t *testing.T) {
		env, _, root := testEnv(t, map[string]string{
			"KUBECONFIG":              testdataKubeconfig(t, "contexts.yaml"),
			"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443",
		})
		writeFile(t, filepath.Join(root, serviceAccountDir, "token"), "tok\n")
		cfg, err := loadConfig(LoadOptions{}, env)
		if err != nil || cfg.Host != "https://dev.example:6443" {
			t.Fatalf("loadConfig = %v, %v, want the KUBECONFIG file", cfg, err)
		}
		cfg, err = loadConfig(LoadOptions{Path: basic}, env)
		if err != nil || cfg.Host != "https://127.0.0.1:6443" {
			t.Fatalf("loadConfig(Path) = %v, %v, want the explicit file", cfg, err)
		}
	})
	t.Run("an error in a merge names the file", func(t *testing.T) {
		list := testdataKubeconfig(t, "missing-user.yaml") + string(os.PathListSeparator) + basic
		env, _, _ := testEnv(t, map[string]string{"KUBECONFIG": list})
		_, err := loadConfig(LoadOptions{}, env)
		if want := "missing-user.yaml: line 7: context \"c\": user \"ghost\" not found"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("loadConfig error = %v, want it to contain %q", err, want)
		}
	})
	t.Run("not in cluster", func(t *testing.T) {
		_, err := inClusterConfig(t.TempDir(), func(string) string { return "" })
		if !errors.Is(err, ErrNotInCluster) {
			t.Errorf("inClusterConfig without the environment: error = %v, want ErrNotInCluster", err)
		}
	})
}

// writeFile writes content to path, making its directory.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
