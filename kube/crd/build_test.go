// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

type Gadget struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            GadgetSpec    `json:"spec"`
	Status          *GadgetStatus `json:"status,omitempty"`
}

type GadgetSpec struct {
	Size     int32             `json:"size" crd:"minimum=1,printColumn=Size"`
	Color    string            `json:"color,omitempty" crd:"enum=red;green,default=red,selectableField,printColumn=Color,printColumnPriority=1,description='The color, say red.'"`
	Port     kube.IntOrString  `json:"port,omitzero" crd:"printColumn=Port"`
	Labels   map[string]string `json:"labels,omitempty"`
	Template kube.ObjectMeta   `json:"template,omitzero"`
	Object   *kube.ConfigMap   `json:"object,omitempty" crd:"embeddedResource"`
	Raw      json.RawMessage   `json:"raw,omitempty"`
	Started  kube.Time         `json:"started,omitzero" crd:"printColumn=Started"`
}

type GadgetStatus struct {
	Replicas   int32            `json:"replicas"`
	Conditions []kube.Condition `json:"conditions,omitempty"`
}

func (*Gadget) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "test.kubeloop.dev", Version: "v1alpha1", Kind: "Gadget"}
}

func TestFor(t *testing.T) {
	c, err := For(&Gadget{}, Options{ShortNames: []string{"gd"}, Scale: &ScaleSubresource{SpecReplicasPath: ".spec.size", StatusReplicasPath: ".status.replicas"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.APIVersion != "apiextensions.k8s.io/v1" || c.Kind != "CustomResourceDefinition" || c.Name != "gadgets.test.kubeloop.dev" {
		t.Errorf("identity = %s %s %s", c.APIVersion, c.Kind, c.Name)
	}
	wantNames := Names{Plural: "gadgets", Singular: "gadget", ShortNames: []string{"gd"}, Kind: "Gadget", ListKind: "GadgetList"}
	if fmt.Sprint(c.Spec.Names) != fmt.Sprint(wantNames) || c.Spec.Scope != Namespaced || c.Spec.Group != "test.kubeloop.dev" {
		t.Errorf("spec = %+v, want names %+v, Namespaced", c.Spec, wantNames)
	}
	if len(c.Spec.Versions) != 1 {
		t.Fatalf("versions = %d, want 1", len(c.Spec.Versions))
	}
	v := c.Spec.Versions[0]
	if v.Name != "v1alpha1" || !v.Served || !v.Storage {
		t.Errorf("version = %s served %v storage %v", v.Name, v.Served, v.Storage)
	}
	if v.Subresources == nil || v.Subresources.Status == nil || v.Subresources.Scale == nil || v.Subresources.Scale.SpecReplicasPath != ".spec.size" {
		t.Errorf("subresources = %+v, want status and scale", v.Subresources)
	}
	var cols []string
	for _, col := range v.AdditionalPrinterColumns {
		cols = append(cols, fmt.Sprintf("%s:%s:%s:%d", col.Name, col.Type, col.JSONPath, col.Priority))
	}
	wantCols := []string{"Size:integer:.spec.size:0", "Color:string:.spec.color:1", "Port:string:.spec.port:0",
		"Started:date:.spec.started:0", "Age:date:.metadata.creationTimestamp:0"}
	if !slices.Equal(cols, wantCols) {
		t.Errorf("columns = %v, want %v", cols, wantCols)
	}
	if v.AdditionalPrinterColumns[1].Description != "The color, say red." {
		t.Errorf("column description = %q", v.AdditionalPrinterColumns[1].Description)
	}
	if len(v.SelectableFields) != 1 || v.SelectableFields[0].JSONPath != ".spec.color" {
		t.Errorf("selectable fields = %+v", v.SelectableFields)
	}

	root := v.Schema.OpenAPIV3Schema
	if got := strings.Join(slices.Sorted(maps.Keys(root.Properties)), ","); got != "apiVersion,kind,metadata,spec,status" {
		t.Errorf("root properties = %s", got)
	}
	if b, _ := json.Marshal(root.Properties["metadata"]); string(b) != `{"type":"object"}` {
		t.Errorf("root metadata = %s, want only type object", b)
	}
	if !slices.Equal(root.Required, []string{"spec"}) {
		t.Errorf("root required = %v, want [spec]", root.Required)
	}
	spec := root.Properties["spec"]
	if b, _ := json.Marshal(spec.Properties["object"]); !strings.Contains(string(b), `"metadata":{"type":"object"}`) ||
		!strings.Contains(string(b), `"x-kubernetes-embedded-resource":true`) {
		t.Errorf("embedded resource = %s, want embedded with metadata only type object", b)
	}
	if tmpl := spec.Properties["template"]; tmpl.Properties["labels"].AdditionalProperties == nil || tmpl.Properties["name"].Type != "string" {
		t.Errorf("nested ObjectMeta = %+v, want it described field by field", tmpl)
	}
	conds := root.Properties["status"].Properties["conditions"]
	if conds.XListType != "map" || !slices.Equal(conds.XListMapKeys, []string{"type"}) {
		t.Errorf("conditions list type = %q %v", conds.XListType, conds.XListMapKeys)
	}
}

func TestForOptions(t *testing.T) {
	c, err := For(&plainObject{}, Options{Plural: "people", Singular: "person", Scope: Cluster, NoStatusSubresource: true,
		PrinterColumns: []PrinterColumn{{Name: "Created", Type: "date", JSONPath: ".metadata.creationTimestamp"}}})
	if err != nil {
		t.Fatal(err)
	}
	v := c.Spec.Versions[0]
	if c.Name != "people.test.kubeloop.dev" || c.Spec.Scope != Cluster || v.Subresources != nil || len(v.AdditionalPrinterColumns) != 1 {
		t.Errorf("CRD = %s %s subresources %+v columns %+v", c.Name, c.Spec.Scope, v.Subresources, v.AdditionalPrinterColumns)
	}
	// A type without TypeMeta still gets apiVersion and kind.
	if _, ok := v.Schema.OpenAPIV3Schema.Properties["apiVersion"]; !ok {
		t.Errorf("root without apiVersion: %v", slices.Sorted(maps.Keys(v.Schema.OpenAPIV3Schema.Properties)))
	}
}

type plainObject struct {
	kube.ObjectMeta `json:"metadata"`
	Status          struct{} `json:"status"`
}

func (*plainObject) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "test.kubeloop.dev", Version: "v1", Kind: "Person"}
}

type badObject struct {
	kube.ObjectMeta `json:"metadata"`
	Spec            struct {
		When time.Time `json:"when" crd:"printColumn=When"`
		Also string    `json:"also" crd:"printColumn=When"`
	} `json:"spec"`
}

func (*badObject) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "test.kubeloop.dev", Version: "v1", Kind: "Bad"}
}

type noGroup struct{ kube.ObjectMeta }

func (*noGroup) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Version: "v1", Kind: "X"}
}

func TestForErrors(t *testing.T) {
	if _, err := For(&badObject{}, Options{}); err == nil || err.Error() != `crd: schema of crd.badObject: two printer columns named "When"` {
		t.Errorf("For(two columns of one name) = %v", err)
	}
	if _, err := For(&noGroup{}, Options{}); err == nil || !strings.Contains(err.Error(), "lacks a group") {
		t.Errorf("For(no group) = %v", err)
	}
	if _, err := For(&recursiveObject{}, Options{}); err == nil ||
		!strings.HasPrefix(err.Error(), "crd: schema of crd.recursiveObject: .spec.children[*]: recursive type crd.Node") {
		t.Errorf("For(recursive) = %v", err)
	}
}

type recursiveObject struct {
	kube.ObjectMeta `json:"metadata"`
	Spec            Node `json:"spec"`
}

func (*recursiveObject) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "test.kubeloop.dev", Version: "v1", Kind: "Tree"}
}

func TestPlural(t *testing.T) {
	for kind, want := range map[string]string{"Widget": "widgets", "Policy": "policies", "Gateway": "gateways",
		"Box": "boxes", "Ingress": "ingresses", "Batch": "batches", "Mesh": "meshes", "Y": "ys"} {
		if got := Plural(kind); got != want {
			t.Errorf("Plural(%q) = %q, want %q", kind, got, want)
		}
	}
}

type orderedColumns struct {
	kube.ObjectMeta `json:"metadata"`
	Spec            struct {
		Size  int32  `json:"size" crd:"printColumn=Size"`
		Color string `json:"color" crd:"printColumn=Color,printColumnOrder=2"`
		Mode  string `json:"mode" crd:"printColumn=Mode"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase" crd:"printColumn=Phase,printColumnOrder=-1"`
		Ready bool   `json:"ready" crd:"printColumn=Ready,printColumnOrder=-1"`
	} `json:"status"`
}

func (*orderedColumns) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "test.kubeloop.dev", Version: "v1", Kind: "Ordered"}
}

// printColumnOrder sorts the columns of tags, those of one order (0 by
// default) in field order; Options.PrinterColumns and Age come after.
func TestPrintColumnOrder(t *testing.T) {
	c, err := For(&orderedColumns{}, Options{PrinterColumns: []PrinterColumn{{Name: "Extra", Type: "string", JSONPath: ".spec.mode"}}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, col := range c.Spec.Versions[0].AdditionalPrinterColumns {
		names = append(names, col.Name)
	}
	if want := []string{"Phase", "Ready", "Size", "Mode", "Color", "Extra", "Age"}; !slices.Equal(names, want) {
		t.Errorf("columns = %v, want %v", names, want)
	}
	if _, err := For(&struct {
		orderedColumns
		X int `json:"x" crd:"printColumn=X,printColumnOrder=first"`
	}{}, Options{}); err == nil || !strings.Contains(err.Error(), "printColumnOrder=first: want an integer") {
		t.Errorf("For(printColumnOrder=first) = %v, want the tag named", err)
	}
}
