// SPDX-License-Identifier: Apache-2.0

package binding

import (
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// obj is a decoded JSON object.
type obj = map[string]any

// Target returns the node the Binding b assigns its pod to, or the
// message kube-apiserver 1.36 answers with a 500 (it returns the
// validation error unwrapped) when its target is of another kind than
// Node or has no name.
func Target(b map[string]any) (node, invalid string) {
	target, _ := b["target"].(obj)
	var errs []string
	if k := unstructured.String(target, "kind"); k != "" && k != "Node" {
		errs = append(errs, `target.kind: Unsupported value: `+strconv.Quote(k)+`: supported values: "Node", "<empty>"`)
	}
	node = unstructured.String(target, "name")
	if node == "" {
		errs = append(errs, "target.name: Required value")
	}
	switch len(errs) {
	case 0:
		return node, ""
	case 1:
		return "", errs[0]
	}
	return "", "[" + strings.Join(errs, ", ") + "]"
}

// Assign assigns the pod o, named name, to node: spec.nodeName, the
// annotations of the Binding (its metadata.annotations), and a
// PodScheduled condition of status True (its transition time now unless it
// was True already). A pod already assigned is left as it is, and the
// conflict's message returned.
func Assign(o map[string]any, name, node string, annotations map[string]any, now string) (conflict string) {
	spec, _ := o["spec"].(obj)
	if cur := unstructured.String(spec, "nodeName"); cur != "" {
		return "pod " + name + " is already assigned to node " + strconv.Quote(cur)
	}
	if spec == nil {
		spec = obj{}
		o["spec"] = spec
	}
	spec["nodeName"] = node
	if len(annotations) > 0 {
		meta := unstructured.Metadata(o)
		podAnn, _ := meta["annotations"].(obj)
		if podAnn == nil {
			podAnn = obj{}
			meta["annotations"] = podAnn
		}
		for k, v := range annotations {
			podAnn[k] = v
		}
	}
	setPodScheduled(o, now)
	return ""
}

// setPodScheduled sets the pod's PodScheduled condition to True, its
// transition time now unless it was True already.
func setPodScheduled(o obj, now string) {
	st, _ := o["status"].(obj)
	if st == nil {
		st = obj{}
		o["status"] = st
	}
	conds, _ := st["conditions"].([]any)
	for _, c := range conds {
		if co, _ := c.(obj); co["type"] == "PodScheduled" {
			if co["status"] != "True" {
				co["status"], co["lastTransitionTime"] = "True", now
			}
			return
		}
	}
	st["conditions"] = append(conds, obj{"type": "PodScheduled", "status": "True", "lastProbeTime": nil,
		"lastTransitionTime": now})
}
