// SPDX-License-Identifier: Apache-2.0

package podsub

import (
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/defaulting"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file writes pods/resize (in-place resize of a pod's containers),
// as the real server's resize strategy does: a write changes the
// resources and resizePolicy of the containers and init containers
// already there, matched by name; everything else in the body is
// ignored. Of ValidatePodResize's checks only the one a resize of a pod
// kubetest never runs meets first is made: the QoS class must stay.

// PrepareResize is the Pod a write of pods/resize stores: the stored old
// with the resources and resizePolicy of each of its containers taken
// from the container of the same name in the body o.
func PrepareResize(o, old map[string]any) map[string]any {
	next := unstructured.DeepCopy(old).(obj)
	spec, body := unstructured.Child(next, "spec", true), unstructured.Child(o, "spec", false)
	for _, k := range []string{"initContainers", "containers"} {
		asked := map[string]obj{}
		for _, c := range objects(body[k]) {
			asked[unstructured.String(c, "name")] = c
		}
		for _, c := range objects(spec[k]) {
			b, ok := asked[unstructured.String(c, "name")]
			if !ok {
				continue
			}
			for _, f := range []string{"resources", "resizePolicy"} {
				if v, ok := b[f]; ok && v != nil {
					c[f] = unstructured.DeepCopy(v)
				} else {
					delete(c, f)
				}
			}
		}
	}
	defaulting.Default("", "pods", next)
	return next
}

// ValidateResize refuses a resize that changes the pod's QoS class,
// with the real message (the class stored in old's status).
func ValidateResize(next, old map[string]any) []fielderr.Error {
	was := unstructured.String(unstructured.Child(old, "status", false), "qosClass")
	if was == "" || defaulting.QOSClass(unstructured.Child(next, "spec", false)) == was {
		return nil
	}
	return []fielderr.Error{{Type: "FieldValueInvalid", Field: "spec", Value: was,
		Detail: "Pod QOS Class may not change as a result of resizing"}}
}
