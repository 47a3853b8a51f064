// SPDX-License-Identifier: Apache-2.0

package defaulting

import (
	"encoding/base64"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// obj is a decoded JSON object.
type obj = map[string]any

// LabelNamespaceName is the label every Namespace carries, its name.
const LabelNamespaceName = "kubernetes.io/metadata.name"

// Default applies to o, an object of the resource plural of group, the
// defaults its kind's decoding applies: the namespace name label; a
// Secret's type (Opaque) and its write-only stringData, merged into data
// in base64; a LimitRange's container defaults; a Service's spec
// (service.go); those of Pods and Deployments (pod.go) and of the other
// workloads (workloads.go). Other kinds are left as they are.
func Default(group, plural string, o map[string]any) {
	if defaultWorkload(group, plural, o) {
		return
	}
	switch group + "/" + plural {
	case "/pods":
		defaultPod(o)
	case "apps/deployments":
		defaultDeployment(o)
	case "/secrets":
		defaultSecret(o)
	case "/limitranges":
		defaultLimitRange(o)
	case "/services":
		defaultService(o)
	case "/namespaces":
		meta := unstructured.Metadata(o)
		labels, _ := meta["labels"].(obj)
		if labels == nil {
			labels = obj{}
			meta["labels"] = labels
		}
		labels[LabelNamespaceName] = unstructured.String(meta, "name")
	}
}

// Admit adds to o, an object being created, what the real server's
// default admission plugins and create strategies add, owned by no
// manager: a Pod's priority, tolerations and QoS class (podAdmission), a
// Job's selector, the protection finalizers of volumes and claims.
func Admit(group, plural string, o map[string]any) {
	if group == "" && plural == "pods" {
		podAdmission(o)
		return
	}
	workloadAdmission(group, plural, o)
}

// KeepOnUpdate applies to next, the update of old, what a kind's update
// strategy keeps or counts: a DaemonSet's template generation.
func KeepOnUpdate(group, plural string, next, old map[string]any) {
	if group == "apps" && plural == "daemonsets" {
		keepTemplateGeneration(next, old)
	}
}

// Validate refuses, of a Deployment, what its defaults make
// easy to write: a Recreate strategy that keeps the rollingUpdate a
// RollingUpdate one was given (a patch of the type alone). Nil for other
// kinds.
func Validate(group, plural string, o map[string]any) []fielderr.Error {
	if group != "apps" || plural != "deployments" {
		return nil
	}
	spec := unstructured.Child(o, "spec", false)
	strategy := unstructured.Child(spec, "strategy", false)
	if strategy["type"] == "Recreate" && strategy["rollingUpdate"] != nil {
		return []fielderr.Error{{Type: "FieldValueForbidden", Field: "spec.strategy.rollingUpdate",
			Detail: "may not be specified when strategy `type` is 'Recreate'"}}
	}
	return nil
}

// setMissing sets m[k] to v when m has no k (or holds null or "" there,
// which the typed decoding cannot tell from missing).
func setMissing(m obj, k string, v any) {
	if cur, ok := m[k]; !ok || cur == nil || cur == "" {
		m[k] = v
	}
}

// eachObject calls f for each object of the list m[k].
func eachObject(m obj, k string, f func(obj)) {
	list, _ := m[k].([]any)
	for _, v := range list {
		if o, ok := v.(obj); ok {
			f(o)
		}
	}
}

func defaultSecret(o obj) {
	if unstructured.String(o, "type") == "" {
		o["type"] = "Opaque"
	}
	sd, _ := o["stringData"].(obj)
	delete(o, "stringData")
	if len(sd) == 0 {
		return
	}
	data, _ := o["data"].(obj)
	if data == nil {
		data = obj{}
		o["data"] = data
	}
	for k, v := range sd {
		if s, ok := v.(string); ok {
			data[k] = base64.StdEncoding.EncodeToString([]byte(s))
		}
	}
}

// defaultLimitRange fills the defaults of Container limits as the real
// server does: a missing default limit from max, then a missing default
// request from the default limit, then from min.
func defaultLimitRange(o obj) {
	spec, _ := o["spec"].(obj)
	limits, _ := spec["limits"].([]any)
	for _, l := range limits {
		item, ok := l.(obj)
		if !ok || item["type"] != "Container" {
			continue
		}
		fill := func(to string, from ...string) {
			dst, _ := item[to].(obj)
			if dst == nil {
				dst = obj{}
			}
			for _, f := range from {
				src, _ := item[f].(obj)
				for k, v := range src {
					if _, ok := dst[k]; !ok {
						dst[k] = v
					}
				}
			}
			if len(dst) > 0 {
				item[to] = dst
			}
		}
		fill("default", "max")
		fill("defaultRequest", "default", "min")
	}
}
