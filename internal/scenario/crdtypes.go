// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// The Go types of [testCRDFromGoTypes]: their CRDs are built by kube/crd, and
// together they use every shape the builder knows. Their identity comes
// from their TypeMeta, so that each run can use a group of its own (a
// reused real server keeps the CRDs of earlier runs).

// Sprocket has a bit of everything: bounds, enums, patterns, defaults,
// nested structs, pointers, maps, slices (a set and a map list),
// int-or-string, times, bytes, a nested ObjectMeta, free-form fields,
// embedded objects, and conditions in its status.
type Sprocket struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            SprocketSpec   `json:"spec"`
	Status          SprocketStatus `json:"status,omitzero"`
}

// GroupVersionKind implements kube.Object: the TypeMeta's.
func (s *Sprocket) GroupVersionKind() kube.GroupVersionKind { return s.TypeMeta.GroupVersionKind() }

type SprocketSpec struct {
	Size     int32              `json:"size" crd:"minimum=1,maximum=10,printColumn=Size"`
	Name     string             `json:"name" crd:"maxLength=20,pattern='^[a-z]([-a-z0-9]*[a-z0-9])?$'"`
	Color    string             `json:"color,omitempty" crd:"enum=red;green;blue,default=red,selectableField"`
	Port     kube.IntOrString   `json:"port,omitzero"`
	Ratio    float64            `json:"ratio,omitempty" crd:"minimum=0,maximum=1"`
	Big      int64              `json:"big,omitempty"`
	Enabled  *bool              `json:"enabled,omitempty"`
	Tags     []string           `json:"tags,omitempty" crd:"maxItems=3,maxLength=8,listType=set"`
	Limits   map[string]int64   `json:"limits,omitempty" crd:"minimum=0"`
	Parts    []Part             `json:"parts,omitempty" crd:"listType=map,listMapKey=name"`
	Owner    *Owner             `json:"owner,omitempty"`
	Payload  []byte             `json:"payload,omitempty"`
	Deadline *kube.Time         `json:"deadline,omitempty"`
	Started  kube.MicroTime     `json:"started,omitzero"`
	Timeout  time.Duration      `json:"timeout,omitempty"`
	Template kube.ObjectMeta    `json:"template,omitzero"`
	Extra    map[string]any     `json:"extra,omitempty"`
	Anything any                `json:"anything,omitempty"`
	Raw      json.RawMessage    `json:"raw,omitempty"`
	Config   *kube.ConfigMap    `json:"config,omitempty" crd:"embeddedResource"`
	Object   *kube.Unstructured `json:"object,omitempty"`
}

type Part struct {
	Name  string `json:"name"`
	Count int    `json:"count,omitempty" crd:"minimum=0"`
	Notes []Note `json:"notes,omitempty"`
}

type Note struct {
	Text string `json:"text"`
}

type Owner struct {
	Team    string   `json:"team"`
	Contact *Contact `json:"contact,omitempty"`
}

type Contact struct {
	Email string `json:"email" crd:"pattern=@"`
	Phone string `json:"phone,omitempty"`
}

type SprocketStatus struct {
	Replicas   int32            `json:"replicas"`
	Conditions []kube.Condition `json:"conditions,omitempty"`
}

// Cog is a cluster-scoped kind with an embedded, inlined struct and a
// status without a status subresource.
type Cog struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	CogFields
	Teeth map[string][]int32 `json:"teeth,omitempty"`
}

// GroupVersionKind implements kube.Object: the TypeMeta's.
func (c *Cog) GroupVersionKind() kube.GroupVersionKind { return c.TypeMeta.GroupVersionKind() }

// CogFields sits inline in Cog, as encoding/json puts it.
type CogFields struct {
	Diameter uint16 `json:"diameter"`
	Material string `json:"material,omitempty"`
}
