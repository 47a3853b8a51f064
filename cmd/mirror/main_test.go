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
// kubeconfig, it mirrors a source; cancelled (SIGTERM), it exits 0.
func TestRunWithKubeconfig(t *testing.T) {
	client, path := operatortest.Cluster(t)

	ctx := t.Context()
	p := operatortest.Start(t, run, "--kubeconfig", path, "--leader-elect", "--leader-election-namespace", "default",
		"--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "127.0.0.1:0", "--log-format", "json")

	for _, ns := range []string{"team-a", "team-b"} {
		if err := client.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	src := &kube.ConfigMap{
		ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "settings", Annotations: map[string]string{mirror.AnnotationTo: "team-a,team-b"}},
		Data:       map[string]string{"colour": "blue"},
	}
	if err := client.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"team-a", "team-b"} {
		p.Until("a copy in "+ns, func() error {
			c := &kube.ConfigMap{}
			if err := client.Get(ctx, kube.Key{Namespace: ns, Name: "settings"}, c); err != nil {
				return err
			}
			if c.Data["colour"] != "blue" || c.Labels[mirror.LabelOfKind] != "ConfigMap" {
				return fmt.Errorf("copy %v", c)
			}
			return nil
		})
	}
	p.Stop()
}
