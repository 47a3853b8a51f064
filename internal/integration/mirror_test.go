// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// TestMirrorEndToEnd builds cmd/mirror, runs it against the real
// kube-apiserver as an operator would (as a ServiceAccount granted
// cmd/mirror/rbac.yaml and nothing else), and checks that it mirrors a Secret,
// cleans up after its source, and stops with exit code 0 on SIGTERM.
func TestMirrorEndToEnd(t *testing.T) {
	h := harnessFromEnv(t)
	admin, _ := loadConfigs(t)
	c, err := kube.NewClient(admin, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	bin := buildProgram(t, ctx, "mirror")
	src, dst := "mirror-src-"+randomName(), "mirror-dst-"+randomName()
	for _, ns := range []string{src, dst} {
		if err := c.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}

	kubeconfig := boundKubeconfig(t, ctx, c, h, "mirror", src) // cmd/mirror/rbac.yaml and nothing else
	p := startProgram(t, ctx, "mirror", bin, "--kubeconfig", kubeconfig, "--namespace", src,
		"--leader-elect", "--leader-election-namespace", src, "--health-probe-bind-address", "0", "--log-level", "debug")

	secret := &kube.Secret{
		ObjectMeta: kube.ObjectMeta{Namespace: src, Name: "db-password", Annotations: map[string]string{"kubeloop.dev/mirror-to": dst}},
		Data:       map[string][]byte{"password": []byte("hunter2")},
	}
	if err := c.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the copy in "+dst, func() error {
		var copy kube.Secret
		if err := c.Get(ctx, kube.Key{Namespace: dst, Name: "db-password"}, &copy); err != nil {
			return err
		}
		if string(copy.Data["password"]) != "hunter2" || copy.Labels["kubeloop.dev/mirror-of-namespace"] != src {
			return fmt.Errorf("copy data %q labels %v", copy.Data, copy.Labels)
		}
		return nil
	})

	if err := c.Delete(ctx, secret); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the copy and the source gone", func() error {
		var s kube.Secret
		for _, key := range []kube.Key{{Namespace: dst, Name: "db-password"}, {Namespace: src, Name: "db-password"}} {
			if err := c.Get(ctx, key, &s); !kube.IsNotFound(err) {
				return fmt.Errorf("%s: %v (finalizers %v)", key, err, s.Finalizers)
			}
		}
		return nil
	})

	p.stop(t)
}

// waitFor polls check until it returns nil; a real server and a separate
// process act on their own time. It fails the test after 60 seconds.
func waitFor(t *testing.T, ctx context.Context, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
