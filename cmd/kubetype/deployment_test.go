// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"crypto/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestGeneratedDeployment is the program a user writes with the partial
// Deployment type of deployment_gen_test.go (six fields declared): create,
// read, scale to zero, and nothing the type leaves out is lost. It runs on
// kubetest, and on the real server when KUBELOOP_KUBECONFIG names one (as
// the integration suite's environment does).
func TestGeneratedDeployment(t *testing.T) {
	t.Run("kubetest", func(t *testing.T) {
		srv := kubetest.New(kubetest.Options{})
		defer srv.Close()
		c, err := srv.Client(kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		scaleToZero(t, c, "default")
	})
	t.Run("kube-apiserver", func(t *testing.T) {
		path := os.Getenv("KUBELOOP_KUBECONFIG")
		if path == "" {
			t.Skip("KUBELOOP_KUBECONFIG is not set: no real server to run on")
		}
		cfg, err := kube.LoadConfig(kube.LoadOptions{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		c, err := kube.NewClient(cfg, kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		ns := &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "kubetype-" + strings.ToLower(rand.Text()[:8])}}
		if err := c.Create(ctx, ns); err != nil {
			t.Fatal(err)
		}
		defer c.Delete(ctx, ns)
		scaleToZero(t, c, ns.Name)
	})
}

func scaleToZero(t *testing.T, c *kube.Client, ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	three := int32(3)
	labels := map[string]string{"app": "web"}
	d := &Deployment{
		ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: DeploymentSpec{
			Replicas: &three,
			Selector: kube.LabelSelector{MatchLabels: labels},
			Template: PodTemplateSpec{
				Metadata: kube.ObjectMeta{Labels: labels},
				Spec:     PodSpec{Containers: []Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	var got Deployment
	if err := c.Get(ctx, kube.Key{Namespace: ns, Name: "web"}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Replicas == nil || *got.Spec.Replicas != 3 || got.Spec.Template.Spec.Containers[0].Image != "nginx:1.27" {
		t.Fatalf("read back spec %+v", got.Spec)
	}
	zero := int32(0)
	got.Spec.Replicas = &zero
	if err := c.Update(ctx, &got); err != nil {
		t.Fatal(err)
	}
	// Read whole: zero replicas (not absent, which the server would
	// default to 1), and the server's defaults the type does not declare.
	u := &kube.Unstructured{}
	u.SetGroupVersionKind(got.GroupVersionKind())
	if err := c.Get(ctx, kube.Key{Namespace: ns, Name: "web"}, u); err != nil {
		t.Fatal(err)
	}
	if r, err := kube.NestedInt64(u.Content, "spec", "replicas"); err != nil || r != 0 {
		t.Errorf("spec.replicas = %d (%v) after scaling to zero, want 0", r, err)
	}
	if s, _ := kube.NestedString(u.Content, "spec", "strategy", "type"); s != "RollingUpdate" {
		t.Errorf("spec.strategy.type = %q after an Update with a type that does not declare it, want the server's default RollingUpdate kept", s)
	}
	containers, _ := kube.NestedSlice(u.Content, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		t.Fatalf("containers = %v", containers)
	}
	if p, _ := kube.NestedString(containers[0].(map[string]any), "imagePullPolicy"); p != "IfNotPresent" {
		t.Errorf("containers[0].imagePullPolicy = %q, want the server's default IfNotPresent kept", p)
	}
}
