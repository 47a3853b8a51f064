// SPDX-License-Identifier: Apache-2.0

package scale

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// obj is a decoded JSON object.
type obj = map[string]any

// Paths says where a kind keeps what its Scale shows: dotted paths
// as a CRD's subresources.scale writes them (".spec.replicas").
type Paths struct {
	SpecReplicas, StatusReplicas, LabelSelector string
	// SelectorObject says the selector is a LabelSelector object (a
	// Deployment's spec.selector), shown as its string form; otherwise
	// it is already a string (a custom resource's labelSelectorPath).
	SelectorObject bool
	// SelectorMap says the selector is a map of labels (a
	// ReplicationController's spec.selector), shown as its string form.
	SelectorMap bool
}

// Workload is where a Deployment (a ReplicaSet, a StatefulSet) keeps
// its scale.
func Workload() *Paths {
	return &Paths{SpecReplicas: ".spec.replicas", StatusReplicas: ".status.replicas",
		LabelSelector: ".spec.selector", SelectorObject: true}
}

// ReplicationController is where a ReplicationController keeps its
// scale: its selector is a map of labels.
func ReplicationController() *Paths {
	return &Paths{SpecReplicas: ".spec.replicas", StatusReplicas: ".status.replicas",
		LabelSelector: ".spec.selector", SelectorMap: true}
}

// FromCRD reads a CRD version's subresources.scale, nil when absent.
func FromCRD(sub map[string]any) *Paths {
	sc, ok := sub["scale"].(obj)
	if !ok {
		return nil
	}
	return &Paths{SpecReplicas: unstructured.String(sc, "specReplicasPath"),
		StatusReplicas: unstructured.String(sc, "statusReplicasPath"),
		LabelSelector:  unstructured.String(sc, "labelSelectorPath")}
}

// Field reads the field at a dotted path of o.
func Field(o map[string]any, p string) (any, bool) {
	var cur any = o
	for _, k := range strings.Split(strings.TrimPrefix(p, "."), ".") {
		m, ok := cur.(obj)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// SetField sets the field at a dotted path of o, making the objects on the
// way.
func SetField(o map[string]any, p string, v any) {
	keys := strings.Split(strings.TrimPrefix(p, "."), ".")
	m := o
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(obj)
		if !ok {
			next = obj{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}

// Of is the autoscaling/v1 Scale of o, an object at the version its
// Scale is served from; ok is false when o has no spec replicas where p
// says and defaultReplicas is 0 (a custom resource: the real server's
// 500). A Deployment without spec replicas shows defaultReplicas, its
// default 1.
func (p *Paths) Of(o map[string]any, defaultReplicas int64) (sc map[string]any, ok bool) {
	meta := unstructured.Metadata(o)
	sm := obj{}
	for _, k := range []string{"name", "namespace", "uid", "resourceVersion", "creationTimestamp"} {
		if v, ok := meta[k]; ok {
			sm[k] = v
		}
	}
	spec, status := obj{}, obj{"replicas": int64(0)}
	v, found := Field(o, p.SpecReplicas)
	switch {
	case found:
		if n, isInt := unstructured.IntegerValue(v); isInt && n != 0 {
			spec["replicas"] = n
		}
	case defaultReplicas == 0:
		return nil, false
	default:
		spec["replicas"] = defaultReplicas
	}
	if v, ok := Field(o, p.StatusReplicas); ok {
		if n, isInt := unstructured.IntegerValue(v); isInt {
			status["replicas"] = n
		}
	}
	if sel := p.selector(o); sel != "" {
		status["selector"] = sel
	}
	return obj{"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": sm, "spec": spec, "status": status}, true
}

// selector is the selector a Scale shows: the string at
// LabelSelector, or the LabelSelector object there in its string form.
func (p *Paths) selector(o obj) string {
	v, ok := Field(o, p.LabelSelector)
	if !ok || p.LabelSelector == "" {
		return ""
	}
	if p.SelectorMap {
		return mapSelector(v)
	}
	if !p.SelectorObject {
		s, _ := v.(string)
		return s
	}
	sel, ok := LabelSelector(v)
	if !ok {
		return ""
	}
	return sel.String()
}

// LabelSelector reads v, the JSON value of a LabelSelector (a Scale's
// target, a PodDisruptionBudget's spec.selector), as a selector; ok is
// false when v is not a valid one.
func LabelSelector(v any) (sel kube.Selector, ok bool) {
	raw, err := json.Marshal(v)
	if err != nil {
		return kube.Selector{}, false
	}
	var ls kube.LabelSelector
	if json.Unmarshal(raw, &ls) != nil {
		return kube.Selector{}, false
	}
	sel, err = ls.AsSelector()
	return sel, err == nil
}

// mapSelector is the string form of v, a map of labels, as
// labels.SelectorFromSet writes it: "key=value" pairs sorted by key,
// joined by commas; empty when v is not such a map.
func mapSelector(v any) string {
	m, _ := v.(obj)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		val, _ := m[k].(string)
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + val)
	}
	return b.String()
}
