// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/crd"
)

// Gear is a kind whose printer columns are ordered by tag: the status's
// first, then the spec's, then Size last.
type Gear struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            struct {
		Size  int32  `json:"size,omitempty" crd:"printColumn=Size,printColumnOrder=1"`
		Color string `json:"color,omitempty" crd:"printColumn=Color"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase,omitempty" crd:"printColumn=Phase,printColumnOrder=-1"`
	} `json:"status,omitzero"`
}

// GroupVersionKind implements kube.Object: the TypeMeta's.
func (g *Gear) GroupVersionKind() kube.GroupVersionKind { return g.TypeMeta.GroupVersionKind() }

// testCRDInstaller runs crd.Installer with a logger three times: it
// creates the CRD, finds it unchanged (the server stores a replace with
// the same CRD as a no-op), then updates it, and each time says so with
// the CRD's name, then that it is established. The columns are stored
// in the order of their tags.
func testCRDInstaller(t *testing.T, f *fixture) {
	gvk := kube.GroupVersionKind{Group: "t" + randomSuffix() + ".crd.kubeloop.dev", Version: "v1", Kind: "Gear"}
	build := func(short ...string) *crd.CustomResourceDefinition {
		def, err := crd.For(&Gear{TypeMeta: typeMeta(gvk)}, crd.Options{ShortNames: short})
		if err != nil {
			t.Fatal(err)
		}
		return def
	}
	name := "gears." + gvk.Group
	t.Cleanup(func() { _ = f.c.Delete(context.Background(), build()) })
	for i, step := range []struct {
		def  *crd.CustomResourceDefinition
		want string
	}{
		{build(), "created CRD"},
		{build(), "unchanged CRD"},
		{build("gr"), "updated CRD"},
	} {
		var buf bytes.Buffer
		log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == "rv" {
				return slog.Attr{}
			}
			return a
		}}))
		inst := crd.NewInstaller(f.c, step.def).WithLogger(log)
		ctx, cancel := context.WithTimeout(f.ctx, f.env.Wait)
		done := make(chan error, 1)
		go func() { done <- inst.Start(ctx) }()
		if err := inst.WaitForSync(ctx); err != nil {
			cancel()
			t.Fatalf("install %d: %v", i+1, err)
		}
		cancel()
		<-done
		want := `msg="` + step.want + `" crd=` + name + "\n" + `msg="CRD established" crd=` + name
		if got := strings.TrimSpace(buf.String()); got != want {
			t.Errorf("install %d logged:\n%s\nwant:\n%s", i+1, got, want)
		}
	}
	var got crd.CustomResourceDefinition
	if err := f.c.Get(f.ctx, kube.Key{Name: name}, &got); err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range got.Spec.Versions[0].AdditionalPrinterColumns {
		cols = append(cols, c.Name)
	}
	if want := []string{"Phase", "Color", "Size", "Age"}; !slices.Equal(cols, want) {
		t.Errorf("stored printer columns = %v, want %v", cols, want)
	}
}
