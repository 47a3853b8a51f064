// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

func newDeployment(name string, replicas int) *kube.Unstructured {
	return &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: name},
		Content: map[string]any{"spec": map[string]any{"replicas": replicas,
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}}}}}}
}

// A write of a subresource is reported to OnWrite under the object's
// kind and key when the answer names the object (a Scale, at the
// object's new resourceVersion), and not when it does not (an
// eviction's Status); a nil sub reads into the object itself; errors
// name the subresource and the object.
func TestSubResourceClient(t *testing.T) {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	var written []string
	c, err := kube.NewClient(srv.Config(), kube.ClientOptions{OnWrite: func(w kube.Written) {
		written = append(written, fmt.Sprintf("%s %s rv=%v delete=%v", w.Kind.Kind, w.Key, w.ResourceVersion != "", w.Delete))
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	d := newDeployment("web", 1)
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	sc := &kube.Scale{Spec: kube.ScaleSpec{Replicas: 4}}
	if err := c.SubResource("scale").Update(ctx, d, sc); err != nil {
		t.Fatal(err)
	}
	p := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "p"},
		Content: map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}}
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := c.SubResource("eviction").Create(ctx, p, &kube.Eviction{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"Deployment default/web rv=true delete=false", "Deployment default/web rv=true delete=false", "Pod default/p rv=true delete=false"}
	if !slices.Equal(written, want) {
		t.Errorf("OnWrite saw %q, want %q", written, want)
	}

	status := newDeployment("web", 0)
	status.Content = nil
	if err := c.SubResource("status").Get(ctx, status, nil); err != nil {
		t.Fatal(err)
	}
	if r, _ := kube.NestedInt64(status.Content, "spec", "replicas"); r != 4 || status.ResourceVersion != sc.ResourceVersion {
		t.Errorf("Get status into the object: replicas %d rv %s, want 4 at the Scale's %s", r, status.ResourceVersion, sc.ResourceVersion)
	}

	cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "x"}}
	err = c.SubResource("scale").Get(ctx, cm, sc)
	if want := `get scale of ConfigMap default/x: the server could not find the requested resource`; err == nil || err.Error() != want {
		t.Errorf("Get scale of a ConfigMap = %v, want %s", err, want)
	}
}

// Scaling a Deployment through its scale subresource, as kubectl scale
// does.
func ExampleClient_SubResource() {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	c, err := kube.NewClient(srv.Config(), kube.ClientOptions{FieldManager: "scaler"})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	deploy := newDeployment("web", 1)
	if err := c.Create(ctx, deploy); err != nil {
		panic(err)
	}
	var scale kube.Scale
	if err := c.SubResource("scale").Get(ctx, deploy, &scale); err != nil {
		panic(err)
	}
	fmt.Println("replicas:", scale.Spec.Replicas, "selector:", scale.Status.Selector)
	scale.Spec.Replicas = 3
	if err := c.SubResource("scale").Update(ctx, deploy, &scale); err != nil {
		panic(err)
	}
	fmt.Println("replicas:", scale.Spec.Replicas)
	// Output:
	// replicas: 1 selector: app=web
	// replicas: 3
}
