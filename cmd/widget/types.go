// SPDX-License-Identifier: Apache-2.0

package main

import (
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/crd"
)

// Widget is the operator's custom kind, widgets.example.kubeloop.dev: a
// plain Go struct, whose CRD (schema, printer columns, status
// subresource) [widgetCRD] builds from the fields and their tags at run
// time. There is no generated code: no deepcopy, no YAML.
type Widget struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            WidgetSpec   `json:"spec"`
	Status          WidgetStatus `json:"status,omitzero"`
}

// WidgetSpec is what the user asks for: the widget's ConfigMap holds its
// color and size.
type WidgetSpec struct {
	Color string `json:"color" crd:"enum=red;green;blue,printColumn=Color"`
	Size  int32  `json:"size,omitempty" crd:"minimum=1,maximum=10,default=1,printColumn=Size"`
}

// WidgetStatus is what the operator observed.
type WidgetStatus struct {
	// ObservedGeneration is the generation of the spec the status is of.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// ConfigMap is the name of the widget's ConfigMap.
	ConfigMap string `json:"configMap,omitempty"`
	// Conditions holds Ready (reason Reconciled, or Failed with the
	// error), a map list keyed by type.
	Conditions []kube.Condition `json:"conditions,omitempty"`
}

// GroupVersionKind states the kind's API identity.
func (*Widget) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "example.kubeloop.dev", Version: "v1", Kind: "Widget"}
}

// widgetCRD builds the CustomResourceDefinition of [Widget].
func widgetCRD() (*crd.CustomResourceDefinition, error) {
	return crd.For(&Widget{}, crd.Options{ShortNames: []string{"wdg"}, Categories: []string{"kubeloop"},
		PrinterColumns: []crd.PrinterColumn{{Name: "Ready", Type: "string", JSONPath: `.status.conditions[?(@.type=="Ready")].status`}}})
}
