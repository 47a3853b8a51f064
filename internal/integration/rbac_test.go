// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// boundKubeconfig gives a program exactly the permissions it ships: it
// applies the ClusterRole of cmd/PROGRAM/rbac.yaml (recorded from the
// program's tests on kubetest) with kubectl, makes a ServiceAccount in ns
// bound to it alone, takes a token for it with a TokenRequest, and returns
// a kubeconfig with that token. Everything is deleted when the test ends.
func boundKubeconfig(t *testing.T, ctx context.Context, c *kube.Client, h harness, program, ns string) string {
	t.Helper()
	role := "kubeloop-" + program
	kubectl := os.Getenv("KUBELOOP_KUBECTL")
	if kubectl == "" {
		t.Fatal("KUBELOOP_KUBECTL is unset: run the suite through testdata/kube-apiserver/harness.sh")
	}
	rbacFile := filepath.Join("..", "..", "cmd", program, "rbac.yaml")
	if out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", h.Kubeconfig, "apply", "-f", rbacFile).CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply -f %s: %v\n%s", rbacFile, err, out)
	}
	sa := unstructured("v1", "ServiceAccount", ns, program)
	binding := unstructured("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", role+"-"+ns)
	binding.SetField(map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role}, "roleRef")
	binding.SetField([]any{map[string]any{"kind": "ServiceAccount", "name": program, "namespace": ns}}, "subjects")
	for _, obj := range []*kube.Unstructured{sa, binding} {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_ = c.Delete(ctx, binding)
		_ = c.Delete(ctx, unstructured("rbac.authorization.k8s.io/v1", "ClusterRole", "", role))
	})
	tr := unstructured("authentication.k8s.io/v1", "TokenRequest", "", "")
	tr.SetField(map[string]any{"expirationSeconds": int64(3600)}, "spec")
	if err := c.SubResource("token").Create(ctx, sa, tr); err != nil {
		t.Fatalf("request a token for ServiceAccount %s/%s: %v", ns, program, err)
	}
	token, ok := tr.Field("status", "token")
	if !ok {
		t.Fatalf("TokenRequest answered without status.token: %v", tr.Content)
	}
	kubeconfig := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: %s
  user:
    token: %s
contexts:
- name: c
  context:
    cluster: c
    user: %s
current-context: c
`, h.Server, h.CAFile, program, token, program)
	path := filepath.Join(t.TempDir(), program+".kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func unstructured(apiVersion, kind, ns, name string) *kube.Unstructured {
	u := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: name}}
	u.APIVersion, u.Kind = apiVersion, kind
	return u
}
