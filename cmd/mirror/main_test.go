// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kubeloop/kubeloop/cmd/internal/mirror"
	"github.com/kubeloop/kubeloop/cmd/internal/operator"
	"github.com/kubeloop/kubeloop/cmd/internal/operator/operatortest"
	"github.com/kubeloop/kubeloop/kube"
)

func TestExitCodes(t *testing.T) {
	// No kubeconfig anywhere: the error says how to get one, or to run
	// the demo.
	operatortest.NoCluster(t)
	operatortest.CheckExitCodes(t, run, []operatortest.ExitCase{
		{Name: "help", Args: []string{"-h"}, Code: operator.ExitOK, Stderr: "Exit codes"},
		{Name: "unknown flag", Args: []string{"--nope"}, Code: operator.ExitConfig, Stderr: "flag provided but not defined: -nope"},
		{Name: "log level", Args: []string{"--log-level", "loud"}, Code: operator.ExitConfig, Stderr: `--log-level "loud"`},
		{Name: "log format", Args: []string{"--log-format", "xml"}, Code: operator.ExitConfig, Stderr: `--log-format "xml"`},
		{Name: "workers", Args: []string{"--workers", "0"}, Code: operator.ExitConfig, Stderr: "--workers 0"},
		{Name: "address", Args: []string{"--metrics-bind-address", "8080"}, Code: operator.ExitConfig, Stderr: `--metrics-bind-address "8080"`},
		{Name: "namespace", Args: []string{"--namespace", "Not_A_Namespace"}, Code: operator.ExitConfig, Stderr: `--namespace "Not_A_Namespace"`},
		{Name: "arguments", Args: []string{"extra"}, Code: operator.ExitConfig, Stderr: "unexpected arguments"},
		{Name: "demo", Args: []string{"-demo"}, Code: operator.ExitConfig, Stderr: "flag provided but not defined: -demo"},
		{Name: "no kubeconfig", Args: nil, Code: operator.ExitConfig, Stderr: "go run ./cmd/demo"},
		{Name: "missing kubeconfig", Args: []string{"--kubeconfig", filepath.Join(t.TempDir(), "missing")}, Code: operator.ExitConfig, Stderr: "missing"},
		{Name: "leader election outside a cluster", Args: []string{"--kubeconfig", operatortest.WriteKubeconfig(t, "https://127.0.0.1:1", nil), "--leader-elect", "--metrics-bind-address", "0"}, Code: operator.ExitConfig, Stderr: "LeaderElection.Namespace"},
	})
}

// The binary's life as the integration suite drives it: started with a
// kubeconfig, it mirrors a ConfigMap and a Secret, follows their changes
// and removes the copies with the sources; cancelled (SIGTERM), it exits
// 0. What it asked of the server is what rbac.yaml grants.
func TestRunWithKubeconfig(t *testing.T) {
	client, path, srv := operatortest.RecordedCluster(t)

	ctx := t.Context()
	p := operatortest.Start(t, run, "--kubeconfig", path, "--leader-elect", "--leader-election-namespace", "default",
		"--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "127.0.0.1:0", "--log-format", "json")

	for _, ns := range []string{"team-a", "team-b"} {
		if err := client.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	to := map[string]string{mirror.AnnotationTo: "team-a,team-b"}
	cmSrc := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "settings", Annotations: to},
		Data: map[string]string{"colour": "blue"}}
	secretSrc := &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "password", Annotations: to},
		StringData: map[string]string{"colour": "blue"}}
	// The Secret's copies refused for a while: the failure is reported
	// again and again, as one event series.
	srv.Deny(operatortest.ProgramUser, "create", "secrets")
	for _, src := range []kube.Object{cmSrc, secretSrc} {
		if err := client.Create(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	p.Until("the refused copy reported as an event series", func() error {
		if n := srv.Count("patch", "events.events.k8s.io"); n == 0 {
			return fmt.Errorf("no event patched yet; counts %v", srv.Counts())
		}
		return nil
	})
	srv.Allow(operatortest.ProgramUser, "create", "secrets")
	waitCopies := func(colour string) {
		for _, ns := range []string{"team-a", "team-b"} {
			p.Until("the copies in "+ns+" "+colour, func() error {
				c := &kube.ConfigMap{}
				if err := client.Get(ctx, kube.Key{Namespace: ns, Name: "settings"}, c); err != nil {
					return err
				}
				s := &kube.Secret{}
				if err := client.Get(ctx, kube.Key{Namespace: ns, Name: "password"}, s); err != nil {
					return err
				}
				if c.Data["colour"] != colour || c.Labels[mirror.LabelOfKind] != "ConfigMap" || string(s.Data["colour"]) != colour {
					return fmt.Errorf("copies %v, %v", c, s.Data)
				}
				return nil
			})
		}
	}
	waitCopies("blue")
	// A change of each source reaches its copies; a source deleted takes
	// its copies with it.
	for _, src := range []kube.Object{cmSrc, secretSrc} {
		field := "data"
		if _, ok := src.(*kube.Secret); ok {
			field = "stringData"
		}
		if err := client.Patch(ctx, src, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"` + field + `":{"colour":"red"}}`)}); err != nil {
			t.Fatal(err)
		}
	}
	waitCopies("red")
	for _, src := range []kube.Object{cmSrc, secretSrc} {
		if err := client.Delete(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	for _, ns := range []string{"team-a", "team-b"} {
		p.Until("the copies in "+ns+" gone", func() error {
			if err := client.Get(ctx, kube.Key{Namespace: ns, Name: "settings"}, &kube.ConfigMap{}); !kube.IsNotFound(err) {
				return fmt.Errorf("ConfigMap copy: %v", err)
			}
			if err := client.Get(ctx, kube.Key{Namespace: ns, Name: "password"}, &kube.Secret{}); !kube.IsNotFound(err) {
				return fmt.Errorf("Secret copy: %v", err)
			}
			return nil
		})
	}
	p.Stop()
	operatortest.CheckRBAC(t, srv, "kubeloop-mirror", "rbac.yaml")
}
