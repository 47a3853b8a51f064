// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/race"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// generate runs the command with args against kubetest's schema.
func generate(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	return runArgs(t, append([]string{"-kubetest"}, args...))
}

// TestGeneratedSourcesCompile writes the types of two sets of kinds and
// builds both in one module of their own (one `go vet`, which costs more
// than the generating): whole types of kinds whose schemas reach most of
// what the generator handles, and a custom resource whose schema has its
// objects inline.
func TestGeneratedSourcesCompile(t *testing.T) {
	sources := map[string][]byte{}
	t.Run("whole kinds", func(t *testing.T) { sources["whole"] = wholeKinds(t) })
	t.Run("custom resource inline schemas", func(t *testing.T) { sources["inline"] = customResourceInline(t) })
	if t.Failed() {
		return
	}
	buildModule(t, sources)
}

// wholeKinds writes whole types of kinds whose schemas reach most of what
// the generator handles (int-or-string, quantities, []byte, maps of
// structs, recursive schemas, $ref and x-kubernetes-* field names, two
// kinds sharing types, one name in two groups) and checks what it wrote.
func wholeKinds(t *testing.T) []byte {
	kinds := []string{"apps/v1/Deployment", "v1/Pod", "v1/Service", "v1/Secret", "batch/v1/CronJob",
		"admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration",
		"apiextensions.k8s.io/v1/CustomResourceDefinition", "events.k8s.io/v1/Event",
		"autoscaling/v2/HorizontalPodAutoscaler", "v1/Event"}
	code, err := generate(t, append([]string{"-package", "whole"}, kinds...)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"type CustomResourceDefinition struct", "type JSONSchemaProps struct",
		"Ref string `json:\"$ref,omitempty\"`", "XKubernetesListType", "type Event struct", "type CoreV1Event struct",
		"MaxSurge *kube.IntOrString", "Data map[string][]byte", "Replicas *int32 `json:\"replicas,omitempty\"`",
		"Containers []Container `json:\"containers\"`", "Strategy DeploymentStrategy `json:\"strategy,omitzero\"`",
	} {
		if !containsCode(code, want) {
			t.Errorf("the generated source has no %q", want)
		}
	}
	return code
}

// buildModule vets sources (package name to the source of its one file)
// as the packages of one module that requires this one.
func buildModule(t *testing.T, sources map[string][]byte) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a module")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod := "module example.com/gen\n\ngo 1.25\n\nrequire github.com/kubeloop/kubeloop v0.0.0\n\nreplace github.com/kubeloop/kubeloop => " + root + "\n"
	files := map[string][]byte{"go.mod": []byte(mod)}
	for pkg, code := range sources {
		files[filepath.Join(pkg, pkg+".go")] = code
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Under -race the vet compiles the module's dependencies as the test
	// run has just compiled them, so it finds them in the build cache.
	args := []string{"vet"}
	if race.Enabled() {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./...")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the generated sources: %v\n%s", err, out)
	}
}

// customResourceInline writes the type of a custom resource, whose schema
// has its objects inline: each becomes a struct named after its place.
func customResourceInline(t *testing.T) []byte {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	crd := map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets.example.com"},
		"spec": map[string]any{"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
					"spec": map[string]any{"type": "object", "required": []any{"size"}, "properties": map[string]any{
						"size":   map[string]any{"type": "integer", "description": "Size of the gadget."},
						"ports":  map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{"port": map[string]any{"type": "integer", "format": "int32"}}}},
						"labels": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
						"extra":  map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
					}}}}}}}}}
	if _, err := srv.Create(kube.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}, crd); err != nil {
		t.Fatal(err)
	}
	src, err := sourceFor(srv.Config(), "a test server")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	k, err := findKind(ctx, src, "example.com/v1/Gadget")
	if err != nil {
		t.Fatal(err)
	}
	g := newGenerator(options{pkg: "inline", kinds: []string{"example.com/v1/Gadget"}}, src.describe(ctx))
	if err := g.add(k, nil); err != nil {
		t.Fatal(err)
	}
	code, err := g.source()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"type Gadget struct", "Spec *GadgetSpec `json:\"spec,omitempty\"`",
		"Size int64 `json:\"size\"`", "Ports []GadgetSpecPorts `json:\"ports,omitempty\"`",
		"Port *int32 `json:\"port,omitempty\"`", "Labels map[string]string", "Extra json.RawMessage",
		`Group: "example.com", Version: "v1", Kind: "Gadget"`} {
		if !containsCode(code, want) {
			t.Errorf("the generated source has no %q:\n%s", want, code)
		}
	}
	return code
}

// TestWrongInput: each mistake is named, and nothing is written.
func TestWrongInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-fields", "spec.nope", "apps/v1/Deployment"}, "DeploymentSpec has no field nope (it has minReadySeconds"},
		{[]string{"-fields", "spec..replicas", "apps/v1/Deployment"}, `"spec..replicas" is not a path`},
		{[]string{"Event"}, "events.k8s.io/v1/Event and v1/Event: name one"},
		{[]string{"Gizmo"}, `kind "Gizmo": no schema of the server's declares it`},
		{[]string{"v2/Pod"}, "the server serves no v2 (it serves v1, admissionregistration.k8s.io/v1"},
		{[]string{"apps/v1/"}, "name it as apiVersion/Kind"},
		{[]string{"-package", "my-pkg", "v1/Pod"}, `-package "my-pkg" is not a Go identifier`},
		{[]string{"v1/Pod", "v1/Pod"}, "kind Pod named twice"},
		{nil, "name at least one kind"},
	} {
		out, err := generate(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("kubetype %v: error %v, want one containing %q", tc.args, err, tc.want)
		}
		if len(out) != 0 {
			t.Errorf("kubetype %v wrote %d bytes beside its error", tc.args, len(out))
		}
	}
}

// TestGeneratedFileIsCurrent: deployment_gen_test.go is what the command
// its header names writes today (the header's first line, which names the
// server's version, aside).
func TestGeneratedFileIsCurrent(t *testing.T) {
	have, err := os.ReadFile("deployment_gen_test.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(have), "\n")
	args := strings.Fields(strings.TrimPrefix(lines[2], "// To write it again: kubetype "))
	want, err := runArgs(t, args)
	if err != nil {
		t.Fatal(err)
	}
	_, haveBody, _ := strings.Cut(string(have), "\n")
	_, wantBody, _ := strings.Cut(string(want), "\n")
	if haveBody != wantBody {
		t.Errorf("deployment_gen_test.go is not what %q writes; write it again with go run . %s -o deployment_gen_test.go", lines[2], strings.Join(args, " "))
	}
}

// runArgs runs the command with args and returns what it wrote.
func runArgs(t *testing.T, args []string) ([]byte, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), args, &out, io.Discard)
	return out.Bytes(), err
}

// containsCode says whether code holds want, spaces between words aside
// (gofmt aligns fields).
func containsCode(code []byte, want string) bool {
	flat := strings.Join(strings.Fields(string(code)), " ")
	return strings.Contains(flat, strings.Join(strings.Fields(want), " "))
}
