// SPDX-License-Identifier: Apache-2.0

package crd_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/crd"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

func newClient(t *testing.T) (*kubetest.Server, *kube.Client) {
	t.Helper()
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	c, err := kube.NewClient(srv.Config(), kube.ClientOptions{FieldManager: "crd-test"})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func widgetCRD(t *testing.T, opts crd.Options) *crd.CustomResourceDefinition {
	t.Helper()
	c, err := crd.For(&Widget{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestInstallCreatesThenUpdates(t *testing.T) {
	_, c := newClient(t)
	ctx := context.Background()

	first := widgetCRD(t, crd.Options{})
	if err := crd.Install(ctx, c, first); err != nil {
		t.Fatal(err)
	}
	if first.ResourceVersion == "" || first.UID == "" {
		t.Errorf("after Install: resourceVersion %q uid %q, want what the server stored", first.ResourceVersion, first.UID)
	}
	g := &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "g"}, Spec: WidgetSpec{Size: 2}}
	if err := c.Create(ctx, g); err != nil {
		t.Fatalf("create a Widget after Install: %v", err)
	}

	// A fresh build of the CRD, with a change, updates it in place.
	second := widgetCRD(t, crd.Options{ShortNames: []string{"wd"}})
	if err := crd.Install(ctx, c, second); err != nil {
		t.Fatal(err)
	}
	if second.UID != first.UID || second.ResourceVersion == first.ResourceVersion {
		t.Errorf("after the update: uid %s rv %s, want uid %s kept and rv %s changed", second.UID, second.ResourceVersion, first.UID, first.ResourceVersion)
	}
	var got crd.CustomResourceDefinition
	if err := c.Get(ctx, kube.Key{Name: "widgets.example.com"}, &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Spec.Names.ShortNames, []string{"wd"}) {
		t.Errorf("shortNames on the server = %v, want [wd]", got.Spec.Names.ShortNames)
	}
	if s := got.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["size"]; s.Minimum == nil || *s.Minimum != 1 {
		t.Errorf("schema read back: spec.size = %+v, want minimum 1", s)
	}
	// Installing an object that was installed before (resourceVersion set)
	// works too.
	if err := crd.Install(ctx, c, first); err != nil {
		t.Errorf("Install again of the first object: %v", err)
	}
}

// setCondition writes a condition into the CRD's status, as the server's
// controllers would.
func setCondition(t *testing.T, c *kube.Client, name string, cond kube.Condition) {
	t.Helper()
	ctx := context.Background()
	var cur crd.CustomResourceDefinition
	if err := c.Get(ctx, kube.Key{Name: name}, &cur); err != nil {
		t.Fatal(err)
	}
	kube.SetStatusCondition(&cur.Status.Conditions, cond)
	if err := c.Status().Update(ctx, &cur); err != nil {
		t.Fatal(err)
	}
}

func TestWaitEstablishedReportsNamesConflict(t *testing.T) {
	_, c := newClient(t)
	ctx := context.Background()
	if err := crd.Install(ctx, c, widgetCRD(t, crd.Options{})); err != nil {
		t.Fatal(err)
	}
	setCondition(t, c, "widgets.example.com", kube.Condition{Type: crd.NamesAccepted, Status: kube.ConditionFalse,
		Reason: "MultipleNameConflicts", Message: `"widgets" is already in use`})
	err := crd.WaitEstablished(ctx, c, "widgets.example.com")
	want := `wait for CRD widgets.example.com to be established: its names are not accepted: NamesAccepted=False MultipleNameConflicts: "widgets" is already in use`
	if err == nil || err.Error() != want {
		t.Errorf("WaitEstablished = %v\nwant %s", err, want)
	}
	if err := crd.WaitEstablished(ctx, c, "nothing.example.com"); !kube.IsNotFound(err) {
		t.Errorf("WaitEstablished(missing) = %v, want NotFound", err)
	}
}

func TestWaitEstablishedWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := newClient(t)
		ctx := context.Background()
		name := "widgets.example.com"
		if err := crd.Install(ctx, c, widgetCRD(t, crd.Options{})); err != nil {
			t.Fatal(err)
		}
		setCondition(t, c, name, kube.Condition{Type: crd.Established, Status: kube.ConditionFalse, Reason: "Installing", Message: "the names are being set up"})

		done := make(chan error, 1)
		go func() { done <- crd.WaitEstablished(ctx, c, name) }()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("WaitEstablished returned %v before the CRD was established", err)
		default:
		}
		setCondition(t, c, name, kube.Condition{Type: crd.Established, Status: kube.ConditionTrue, Reason: "InitialNamesAccepted"})
		if err := <-done; err != nil {
			t.Errorf("WaitEstablished = %v, want nil once Established", err)
		}

		// A deadline ends the wait with what was last seen.
		setCondition(t, c, name, kube.Condition{Type: crd.Established, Status: kube.ConditionFalse, Reason: "Installing", Message: "still"})
		tctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		err := crd.WaitEstablished(tctx, c, name)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "conditions last seen: ") ||
			!strings.Contains(err.Error(), "Established=False Installing: still") {
			t.Errorf("WaitEstablished past the deadline = %v, want the deadline and the conditions last seen", err)
		}
	})
}

func ExampleInstall() {
	srv := kubetest.New(kubetest.Options{}) // or a real cluster
	defer srv.Close()
	c, err := kube.NewClient(srv.Config(), kube.ClientOptions{FieldManager: "example"})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Widget is a struct like any kube object (see the example of For).
	def, err := crd.For(&Widget{}, crd.Options{})
	if err != nil {
		panic(err)
	}
	if err := crd.Install(ctx, c, def); err != nil {
		panic(err)
	}
	fmt.Println(def.Name, def.Spec.Scope, def.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Required)

	w := &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "first"}, Spec: WidgetSpec{Size: 3}}
	if err := c.Create(ctx, w); err != nil {
		panic(err)
	}
	fmt.Println(w.Name, w.Spec.Size, w.Generation)
	// Output:
	// widgets.example.com Namespaced [size]
	// first 3 1
}
