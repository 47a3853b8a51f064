// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// The options of one write reach the server as its query says, on every
// write (the status subresource's and apply's included), merged with the
// client's own; a dry run is not reported to OnWrite; warnings go to the
// caller's collector, else to the client's logger.
func TestWriteOptionsPerCall(t *testing.T) {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	var logged bytes.Buffer
	var written []string
	c, err := kube.NewClient(srv.Config(), kube.ClientOptions{
		FieldManager: "client-default",
		Logger:       slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{ReplaceAttr: dropTime})),
		OnWrite:      func(w kube.Written) { written = append(written, w.Key.Name) },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ns := &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "dry"}}
	if err := c.Create(ctx, ns, kube.DryRunAll); err != nil {
		t.Fatal(err)
	}
	ns = &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "wet"}}
	if err := c.Create(ctx, ns, kube.FieldOwner("per-call")); err != nil {
		t.Fatal(err)
	}
	ns.Status.Phase = "Terminating"
	if err := c.Status().Update(ctx, ns, kube.DryRunAll); err != nil || ns.Status.Phase != "Terminating" {
		t.Errorf("dry-run Status().Update = %v, phase %q", err, ns.Status.Phase)
	}
	if err := c.Status().Patch(ctx, ns, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"status":{"phase":"Terminating"}}`)}, kube.DryRunAll); err != nil {
		t.Errorf("dry-run Status().Patch = %v", err)
	}
	if err := c.Apply(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "wet", Labels: map[string]string{"a": "b"}}}, kube.ApplyOptions{DryRun: true}); err != nil {
		t.Errorf("dry-run Apply = %v", err)
	}
	var got kube.Namespace
	if err := c.Get(ctx, kube.Key{Name: "wet"}, &got); err != nil || got.Status.Phase != "Active" || got.Labels["a"] != "" {
		t.Errorf("after dry runs: %v, phase %q labels %v; want Active and no label", err, got.Status.Phase, got.Labels)
	}
	if !bytes.Contains(got.ManagedFields, []byte(`"manager":"per-call"`)) || bytes.Contains(got.ManagedFields, []byte("client-default")) {
		t.Errorf("managedFields = %s, want the create's manager per-call only", got.ManagedFields)
	}
	if want := []string{"wet"}; !slices.Equal(written, want) {
		t.Errorf("OnWrite saw %v, want %v: dry runs are not reported", written, want)
	}

	// Warn without a collector: the client's logger says it.
	cm := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "warned"}, Content: map[string]any{"bogus": true}}
	if err := c.Create(ctx, cm, kube.FieldValidationWarn); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(logged.String()), `level=WARN msg="server warning" warning="unknown field \"bogus\""`; got != want {
		t.Errorf("logged %s, want %s", got, want)
	}
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// Options of one write: a dry run that checks what the server would
// store, then a write under another field manager whose unknown fields
// the server names as warnings.
func ExampleClient_Create_writeOptions() {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	c, err := kube.NewClient(srv.Config(), kube.ClientOptions{FieldManager: "my-operator"})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "settings"}, Data: map[string]string{"a": "1"}}
	if err := c.Create(ctx, cm, kube.DryRunAll); err != nil {
		panic(err)
	}
	err = c.Get(ctx, kube.Key{Namespace: "default", Name: "settings"}, &kube.ConfigMap{})
	fmt.Println("after the dry run, found:", !kube.IsNotFound(err))

	var warnings []string
	loose := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "settings"},
		Content:    map[string]any{"data": map[string]any{"a": "1"}, "dta": map[string]any{"b": "2"}}}
	err = c.Create(ctx, loose, kube.FieldOwner("setup"), kube.FieldValidationWarn, kube.WriteOptions{Warnings: &warnings})
	fmt.Println(err, warnings)
	// Output:
	// after the dry run, found: false
	// <nil> [unknown field "dta"]
}
