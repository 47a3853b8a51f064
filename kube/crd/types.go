// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"github.com/kubeloop/kubeloop/kube"
)

// CustomResourceDefinition is an apiextensions.k8s.io/v1
// CustomResourceDefinition with the fields an operator sets and reads.
// Fields it does not declare (a v1beta1 leftover, fields of later
// releases) are dropped when reading one; [Install] replaces the spec
// whole, so a CRD it writes has exactly what this type holds.
type CustomResourceDefinition struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            Spec   `json:"spec"`
	Status          Status `json:"status,omitzero"`
}

// GroupVersionKind implements [kube.Object].
func (*CustomResourceDefinition) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
}

// Spec is what a CRD declares. Its name must be Names.Plural + "." +
// Group.
type Spec struct {
	// Group is the API group, a DNS subdomain with at least one dot.
	Group string `json:"group"`
	Names Names  `json:"names"`
	Scope Scope  `json:"scope"`
	// Versions lists the served versions; exactly one is the storage
	// version.
	Versions []Version `json:"versions"`
	// Conversion says how objects change between versions; nil is
	// strategy None (only apiVersion changes).
	Conversion *Conversion `json:"conversion,omitempty"`
	// PreserveUnknownFields must be false (the v1 default): unknown fields
	// are kept only where a schema says x-kubernetes-preserve-unknown-fields.
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty"`
}

// Names are the names of the resource and its kind.
type Names struct {
	// Plural is the resource name in paths, lower case: "widgets".
	Plural string `json:"plural"`
	// Singular defaults to the lower-case kind.
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	// Kind is the CamelCase kind of objects: "Widget".
	Kind string `json:"kind"`
	// ListKind defaults to Kind + "List".
	ListKind string `json:"listKind,omitempty"`
	// Categories group resources for kubectl get <category>, such as "all".
	Categories []string `json:"categories,omitempty"`
}

// Scope says whether objects live in namespaces.
type Scope string

// The values of [Spec.Scope].
const (
	Namespaced Scope = "Namespaced"
	Cluster    Scope = "Cluster"
)

// Version is one version of the resource.
type Version struct {
	// Name is the version in apiVersion: "v1", "v1alpha1".
	Name string `json:"name"`
	// Served says whether the version is served over the API.
	Served bool `json:"served"`
	// Storage marks the version objects are stored as; exactly one.
	Storage            bool    `json:"storage"`
	Deprecated         bool    `json:"deprecated,omitempty"`
	DeprecationWarning *string `json:"deprecationWarning,omitempty"`
	// Schema validates, prunes and defaults objects of this version.
	Schema                   *Validation       `json:"schema,omitempty"`
	Subresources             *Subresources     `json:"subresources,omitempty"`
	AdditionalPrinterColumns []PrinterColumn   `json:"additionalPrinterColumns,omitempty"`
	SelectableFields         []SelectableField `json:"selectableFields,omitempty"`
}

// Validation holds a version's schema.
type Validation struct {
	OpenAPIV3Schema *Schema `json:"openAPIV3Schema,omitempty"`
}

// Subresources are the subresources of a version.
type Subresources struct {
	// Status, when set, serves /status: writes to the main resource
	// ignore status, writes to /status ignore everything else, and a
	// spec change bumps metadata.generation.
	Status *StatusSubresource `json:"status,omitempty"`
	// Scale serves /scale, for kubectl scale and autoscalers.
	Scale *ScaleSubresource `json:"scale,omitempty"`
}

// StatusSubresource enables the status subresource; it has no fields.
type StatusSubresource struct{}

// ScaleSubresource maps /scale onto the object's fields. Paths are JSON
// paths in dot notation, such as ".spec.replicas".
type ScaleSubresource struct {
	// SpecReplicasPath must be under .spec, an integer.
	SpecReplicasPath string `json:"specReplicasPath"`
	// StatusReplicasPath must be under .status, an integer.
	StatusReplicasPath string `json:"statusReplicasPath"`
	// LabelSelectorPath, under .spec or .status, holds the serialized
	// label selector of what is scaled (for autoscalers).
	LabelSelectorPath string `json:"labelSelectorPath,omitempty"`
}

// PrinterColumn is a column of kubectl get.
type PrinterColumn struct {
	Name string `json:"name"`
	// Type is integer, number, string, boolean or date.
	Type string `json:"type"`
	// Format is one of int32, int64, float, double, byte, date,
	// date-time, password, or empty.
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	// Priority 0 columns show in the standard view, others with -o wide.
	Priority int32 `json:"priority,omitempty"`
	// JSONPath selects the value, as ".spec.size".
	JSONPath string `json:"jsonPath"`
}

// SelectableField makes a field usable in field selectors
// (?fieldSelector=spec.color=red). The field must be a string, boolean or
// integer.
type SelectableField struct {
	JSONPath string `json:"jsonPath"`
}

// Conversion says how the server converts objects between versions.
type Conversion struct {
	// Strategy is "None" or "Webhook".
	Strategy string             `json:"strategy"`
	Webhook  *WebhookConversion `json:"webhook,omitempty"`
}

// WebhookConversion is the conversion webhook of strategy Webhook.
type WebhookConversion struct {
	ClientConfig *WebhookClientConfig `json:"clientConfig,omitempty"`
	// ConversionReviewVersions lists the ConversionReview versions the
	// webhook understands, preferred first: ["v1"].
	ConversionReviewVersions []string `json:"conversionReviewVersions"`
}

// WebhookClientConfig says how to reach a webhook: a URL or a Service.
type WebhookClientConfig struct {
	URL     *string           `json:"url,omitempty"`
	Service *ServiceReference `json:"service,omitempty"`
	// CABundle is the PEM bundle that signs the webhook's certificate.
	CABundle []byte `json:"caBundle,omitempty"`
}

// ServiceReference names the Service of a webhook.
type ServiceReference struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Path      *string `json:"path,omitempty"`
	Port      *int32  `json:"port,omitempty"`
}

// Status is what the server's CRD controllers report.
type Status struct {
	// Conditions are NamesAccepted, Established, NonStructuralSchema,
	// Terminating and KubernetesAPIApprovalPolicyConformant.
	Conditions []kube.Condition `json:"conditions,omitempty"`
	// AcceptedNames are the names actually served; they differ from
	// Spec.Names while a rename is pending or refused.
	AcceptedNames  Names    `json:"acceptedNames"`
	StoredVersions []string `json:"storedVersions,omitempty"`
}

// The condition types of [Status.Conditions].
const (
	// Established is True once the resource is served.
	Established = "Established"
	// NamesAccepted is False when the names conflict with another
	// resource's; the message says which.
	NamesAccepted = "NamesAccepted"
	// NonStructuralSchema is True when the schema is not structural.
	NonStructuralSchema = "NonStructuralSchema"
	// Terminating is True while the CRD is being deleted.
	Terminating = "Terminating"
)
