// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/cmd/internal/operator"
	"github.com/kubeloop/kubeloop/cmd/internal/operator/operatortest"
	"github.com/kubeloop/kubeloop/kube"
)

func TestExitCodes(t *testing.T) {
	operatortest.NoCluster(t)
	_, kubeconfig := operatortest.Cluster(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	taken := ln.Addr().String()
	operatortest.CheckExitCodes(t, run, []operatortest.ExitCase{
		{Name: "help", Args: []string{"-h"}, Code: operator.ExitOK, Stderr: "Exit codes"},
		{Name: "no kind", Args: nil, Code: operator.ExitConfig, Stderr: "--kind is required"},
		{Name: "bad kind", Args: []string{"--kind", "Deployment"}, Code: operator.ExitConfig, Stderr: `invalid value "Deployment" for flag -kind`},
		{Name: "kind twice", Args: []string{"--kind", "apps/v1/Deployment", "--kind", "apps/v1beta1/Deployment"}, Code: operator.ExitConfig, Stderr: "kind Deployment given twice"},
		{Name: "bad selector", Args: []string{"--kind", "v1/ConfigMap", "--label-selector", "a in (b"}, Code: operator.ExitConfig, Stderr: "--label-selector"},
		{Name: "log level", Args: []string{"--kind", "v1/ConfigMap", "--log-level", "loud"}, Code: operator.ExitConfig, Stderr: `--log-level "loud"`},
		{Name: "sharded and elected", Args: []string{"--kind", "v1/ConfigMap", "--sharded", "--leader-elect"}, Code: operator.ExitConfig, Stderr: "need no leader"},
		{Name: "ring ranges", Args: []string{"--kind", "v1/ConfigMap", "--sharded", "--ring-ranges", "0"}, Code: operator.ExitConfig, Stderr: "--ring-ranges 0"},
		{Name: "no kubeconfig", Args: []string{"--kind", "v1/ConfigMap"}, Code: operator.ExitConfig, Stderr: "pass --kubeconfig"},
		{Name: "metrics address in use", Args: []string{"--kind", "v1/ConfigMap", "--kubeconfig", kubeconfig, "--metrics-bind-address", taken, "--health-probe-bind-address", "0"}, Code: operator.ExitConfig, Stderr: "MetricsBindAddress " + strconv.Quote(taken)},
		{Name: "unknown kind", Args: []string{"--kind", "example.com/v1/Widget", "--kubeconfig", kubeconfig, "--metrics-bind-address", "0", "--health-probe-bind-address", "0"}, Code: operator.ExitConfig, Stderr: `no matches for kind "Widget"`},
	})
}

// The binary's life: started with a kubeconfig, it deletes what is due;
// cancelled (SIGTERM), it exits 0.
func TestRunWithKubeconfig(t *testing.T) {
	client, kubeconfig := operatortest.Cluster(t)
	ctx := t.Context()
	p := operatortest.Start(t, run, "--kubeconfig", kubeconfig, "--kind", "v1/ConfigMap",
		"--leader-elect", "--leader-election-namespace", "default",
		"--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "127.0.0.1:0")
	for _, cm := range []*kube.ConfigMap{
		{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "due", Annotations: map[string]string{AnnotationTTL: "0s"}}},
		{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "later", Annotations: map[string]string{AnnotationTTL: "1h"}}},
	} {
		if err := client.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	p.Until("ConfigMap with ttl 0s deleted", func() error {
		err := client.Get(ctx, kube.Key{Namespace: "default", Name: "due"}, &kube.ConfigMap{})
		if kube.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (%v)", err)
	})
	if err := client.Get(ctx, kube.Key{Namespace: "default", Name: "later"}, &kube.ConfigMap{}); err != nil {
		t.Errorf("ConfigMap with ttl 1h: %v", err)
	}
	p.Stop()
}

// Three replicas run with --sharded: together they delete every object
// due, each holding some ranges of the ring; one stopped (SIGTERM) leaves
// the ring, and the other two delete what comes due after.
func TestRunSharded(t *testing.T) {
	client, kubeconfig := operatortest.Cluster(t)
	ctx := t.Context()
	var replicas []*operatortest.Process
	for range 3 {
		replicas = append(replicas, operatortest.Start(t, run, "--kubeconfig", kubeconfig, "--kind", "v1/ConfigMap",
			"--sharded", "--ring-namespace", "default", "--ring-ranges", "8",
			"--metrics-bind-address", "0", "--health-probe-bind-address", "0"))
	}
	members := func(want int) error {
		var leases kube.List[kube.Lease]
		if err := client.List(ctx, &leases, kube.ListOptions{Namespace: "default"}); err != nil {
			return err
		}
		n := 0
		for _, l := range leases.Items {
			if l.Labels["kubeloop.dev/ring"] == Name {
				n++
			}
		}
		if n != want {
			return fmt.Errorf("%d members in the ring, want %d", n, want)
		}
		return nil
	}
	due := func(prefix string, n int) {
		for i := range n {
			cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: fmt.Sprint(prefix, i), Annotations: map[string]string{AnnotationTTL: "0s"}}}
			if err := client.Create(ctx, cm); err != nil {
				t.Fatal(err)
			}
		}
	}
	gone := func() error {
		var list kube.List[kube.ConfigMap]
		if err := client.List(ctx, &list, kube.ListOptions{Namespace: "default"}); err != nil {
			return err
		}
		for _, cm := range list.Items {
			if cm.Annotations[AnnotationTTL] != "" {
				return fmt.Errorf("%s still there", cm.Name)
			}
		}
		return nil
	}
	replicas[0].Until("3 members", func() error { return members(3) })
	due("a", 30)
	replicas[0].Until("every ConfigMap due deleted", gone)
	replicas[0].Until("every replica holds ranges", func() error {
		for n, p := range replicas {
			if !strings.Contains(p.Logs.String(), "range held") {
				return fmt.Errorf("replica %d holds no range", n)
			}
		}
		return nil
	})
	replicas[1].Stop()
	replicas[0].Until("2 members", func() error { return members(2) })
	due("b", 30)
	replicas[0].Until("every ConfigMap due after the stop deleted", gone)
	replicas[0].Stop()
	replicas[2].Stop()
}
