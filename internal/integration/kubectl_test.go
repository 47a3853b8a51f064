// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestKubectl is the standing real-client check: kubectl of the
// harness's version (built from the same module set as kube-apiserver;
// skipped when kubetest answers as another minor) runs the same
// script of everyday commands (kubectlScript) against kube/kubetest, served
// on a real TLS listener as cmd/kubetest-server serves it, and against the
// real kube-apiserver, each in a fresh namespace; the outputs (exit code,
// stdout, stderr), with volatile fields normalised, must agree.
//
// A command marked as differing names the DIFFERENCES.md entry that says
// why. The test fails when a command expected to agree differs (with a
// unified diff, real server first) and also when a command marked as
// differing now agrees, so that the list shrinks as kubetest improves. It
// logs "kubectl: N of M commands agree"; with KUBELOOP_KUBECTL_SHOW=1 it
// logs every command's two outputs.
func TestKubectl(t *testing.T) {
	h := harnessFromEnv(t)
	bin := os.Getenv("KUBELOOP_KUBECTL")
	if bin == "" {
		t.Fatal("KUBELOOP_KUBECTL is unset: run the suite through testdata/kube-apiserver/harness.sh, whose build makes kubectl")
	}
	differences, err := os.ReadFile("../../kube/kubetest/DIFFERENCES.md")
	if err != nil {
		t.Fatal(err)
	}
	script := kubectlScript()
	if os.Getenv("KUBELOOP_CONTROLLERS") == "" {
		script = slices.DeleteFunc(script, func(s kubectlStep) bool { return s.controllers })
	}
	_, minor := h.serverVersion(t)
	script = slices.DeleteFunc(script, func(s kubectlStep) bool { return minor < s.sinceMinor })
	for _, s := range script {
		if s.differs != "" && !bytes.Contains(differences, []byte("**"+s.differs+"**")) {
			t.Errorf("kubectl %s: reason %q is not an entry of kube/kubetest/DIFFERENCES.md", s.args, s.differs)
		}
		if (s.differs == "") != (s.why == "") {
			t.Errorf("kubectl %s: differs %q and why %q: set both or neither", s.args, s.differs, s.why)
		}
	}

	token := randomName()
	srv := kubetest.New(kubetest.Options{Tokens: map[string]string{"kubectl-" + token: "admin"},
		UIDs: map[string]string{"admin": "1"}, Minor: kubetestMinorOf(t, h)}) // as the harness's token file
	t.Cleanup(srv.Close)
	skipUnlessSameMinor(t, h, srv.ConfigFor("admin"))
	l, err := srv.Listen(true)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(h.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	targets := []*kubectlTarget{
		{name: "kube-apiserver", server: h.Server, ca: ca, token: h.Token},
		{name: "kubetest", server: l.URL, ca: l.CAData, token: "kubectl-" + token},
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for _, tg := range targets {
		tg.prepare(t, ctx, bin, token)
		wg.Go(func() { tg.results = tg.run(ctx, script) })
	}
	wg.Wait()

	agree := 0
	byReason := map[string][]string{}
	show := os.Getenv("KUBELOOP_KUBECTL_SHOW") != ""
	for i, s := range script {
		fromReal, fromFake := targets[0].results[i], targets[1].results[i]
		same := fromReal == fromFake
		if show {
			t.Logf("kubectl %s\n=== kube-apiserver\n%s\n=== kubetest (same: %v)\n%s", s.args, fromReal, same, fromFake)
		}
		if same {
			agree++
		} else {
			byReason[s.reason()] = append(byReason[s.reason()], s.args+": "+s.why)
		}
		switch {
		case !same && s.differs == "":
			t.Errorf("kubectl %s: kubetest differs from kube-apiserver (- kube-apiserver, + kubetest):\n%s", s.args, lineDiff(fromReal, fromFake))
		case same && s.differs != "":
			t.Errorf("kubectl %s: now agrees with kube-apiserver; drop its reason %q from the script:\n%s", s.args, s.differs, fromReal)
		}
	}
	t.Logf("kubectl: %d of %d commands agree", agree, len(script))
	for _, r := range slices.Sorted(maps.Keys(byReason)) {
		t.Logf("differ, %s (%d):\n\t%s", r, len(byReason[r]), strings.Join(byReason[r], "\n\t"))
	}
}

// kubectlTarget is one server the script runs against.
type kubectlTarget struct {
	name, server, token string
	ca                  []byte
	// dir holds the kubeconfig, kubectl's home (its discovery cache), the
	// manifests and the editor; ns is the namespace of the script.
	dir, bin, ns, group string
	vars                *strings.Replacer
	results             []string
}

// prepare writes the target's files and creates the objects the script
// reads (through kube.Client, in JSON, so that their creation does not
// depend on what the script tests).
func (tg *kubectlTarget) prepare(t *testing.T, ctx context.Context, bin, token string) {
	t.Helper()
	tg.dir, tg.bin = t.TempDir(), bin
	tg.ns, tg.group = "kubectl-"+token, "kubectl-"+token+".kubeloop.dev"
	tg.vars = strings.NewReplacer("{ns}", tg.ns, "{group}", tg.group, "{dir}", tg.dir)
	kubeconfig := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: u
  user:
    token: %s
contexts:
- name: c
  context: {cluster: c, user: u, namespace: %s}
current-context: c
`, tg.server, base64.StdEncoding.EncodeToString(tg.ca), tg.token, tg.ns)
	files := kubectlFiles()
	files["kubeconfig"] = kubeconfig
	for name, content := range files {
		p := filepath.Join(tg.dir, name)
		if err := os.WriteFile(p, []byte(tg.vars.Replace(content)), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := kube.LoadConfig(kube.LoadOptions{Path: filepath.Join(tg.dir, "kubeconfig")})
	if err != nil {
		t.Fatal(err)
	}
	c, err := kube.NewClient(cfg, kube.ClientOptions{FieldManager: "kubectl-test-setup"})
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range kubectlFixtures() {
		o := &kube.Unstructured{}
		if err := json.Unmarshal([]byte(tg.vars.Replace(doc)), o); err != nil {
			t.Fatalf("fixture %s: %v", doc, err)
		}
		if err := c.Create(ctx, o); err != nil {
			t.Fatalf("%s: set up %s %s: %v", tg.name, o.Kind, o.Name, err)
		}
		if o.Kind == "CustomResourceDefinition" {
			waitFor(t, ctx, tg.name+": the gizmos CRD served", func() error {
				var list kube.List[kube.Unstructured]
				list.SetGroupVersionKind(kube.GroupVersionKind{Group: tg.group, Version: "v1", Kind: "GizmoList"})
				return c.List(ctx, &list, kube.ListOptions{Namespace: tg.ns})
			})
		}
	}
	t.Cleanup(func() {
		ctx := context.Background()
		crd := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Name: "gizmos." + tg.group}}
		crd.SetGroupVersionKind(kube.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
		_ = c.Delete(ctx, crd)
		_ = c.Delete(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: tg.ns}})
	})
}

// run runs the script in order and returns each command's normalised
// outcome.
func (tg *kubectlTarget) run(ctx context.Context, script []kubectlStep) []string {
	home := filepath.Join(tg.dir, "home")
	out := make([]string, len(script))
	for i, s := range script {
		args := append([]string{"--kubeconfig", filepath.Join(tg.dir, "kubeconfig")}, splitArgs(tg.vars.Replace(s.args))...)
		cctx, cancel := context.WithTimeout(ctx, time.Minute)
		cmd := exec.CommandContext(cctx, tg.bin, args...)
		cmd.Dir = tg.dir
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "KUBE_EDITOR=" + filepath.Join(tg.dir, "editor.sh"),
			"KUBECTL_EXTERNAL_DIFF=diff -u -N", "TZ=UTC", "LANG=C"}
		if s.stdin != "" {
			cmd.Stdin = strings.NewReader(tg.vars.Replace(s.stdin))
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		cancel()
		code := 0
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			code = exit.ExitCode()
		case err != nil:
			stderr.WriteString("\nrun: " + err.Error())
			code = -1
		}
		out[i] = normaliseKubectl(fmt.Sprintf("exit %d\n%s\n--- stderr\n%s", code, stdout.String(), stderr.String()), tg)
	}
	return out
}

// splitArgs splits a command line on blanks, keeping what single quotes
// enclose together (without the quotes).
func splitArgs(s string) []string {
	var args []string
	var cur strings.Builder
	quoted, some := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, some = !quoted, true
		case r == ' ' && !quoted:
			if some {
				args = append(args, cur.String())
			}
			cur.Reset()
			some = false
		default:
			cur.WriteRune(r)
			some = true
		}
	}
	if some {
		args = append(args, cur.String())
	}
	return args
}

// skipUnlessSameMinor skips the comparison when kubetest (reached through
// cfg) answers as another minor than the harness's server: the diff would
// show what the two versions serve differently (1.37's and 1.33's APIs,
// tables and messages), not where kubetest is wrong.
func skipUnlessSameMinor(t *testing.T, h harness, cfg *kube.Config) {
	t.Helper()
	version, minor := h.serverVersion(t)
	hc, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(strings.TrimSuffix(cfg.Host, "/") + "/version")
	if err != nil {
		t.Fatalf("GET kubetest's /version: %v", err)
	}
	defer resp.Body.Close()
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("GET kubetest's /version: %v", err)
	}
	if want := fmt.Sprintf("v1.%d.", minor); !strings.HasPrefix(v.GitVersion, want) {
		t.Skipf("kubetest answers as %s, the server is %s: kubectl's outputs would differ by version, not by kubetest's faults", v.GitVersion, version)
	}
}

// kubetestMinorOf returns the minor of the real server h, for kubetest to
// act as (kubetest.Options.Minor); zero (the newest) when the server's is
// newer than kubetest knows.
func kubetestMinorOf(t *testing.T, h harness) int {
	t.Helper()
	_, minor := h.serverVersion(t)
	if minor < kubetest.OldestMinor {
		t.Fatalf("the server's minor 1.%d is not one kubetest acts as", minor)
	}
	if minor > kubetest.NewestMinor {
		return 0
	}
	return minor
}
