// SPDX-License-Identifier: Apache-2.0

package strategy

import (
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/autoscaling"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/clusterip"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/crd"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/defaulting"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file is what the kinds add to the generic strategies, by group,
// version and plural of the resource written.

// DefaultKind applies the defaults a kind's decoding applies, before
// managedFields are computed: an autoscaler's (package autoscaling, by
// version), and those of package defaulting.
func DefaultKind(group, version, plural string, o obj) {
	if group == "autoscaling" && plural == "horizontalpodautoscalers" {
		autoscaling.Default(version, o)
		return
	}
	defaulting.Default(group, plural, o)
}

// PrepareNamespace gives a Namespace created the spec finalizer
// "kubernetes".
func PrepareNamespace(o obj) {
	spec, _ := o["spec"].(obj)
	if spec == nil {
		spec = obj{}
		o["spec"] = spec
	}
	fins, _ := spec["finalizers"].([]any)
	if !slices.Contains(stringList(spec, "finalizers"), "kubernetes") {
		spec["finalizers"] = append(fins, "kubernetes")
	}
}

// KeepOnUpdate applies a kind's defaults and update strategy to next,
// the object an update stores in place of old: a Namespace keeps its
// spec, a CRD its accepted names (package crd), a Service its cluster IPs
// (package clusterip), the other kinds what package defaulting keeps.
func KeepOnUpdate(group, version, plural string, next, old obj) {
	core := group == ""
	if core && plural == "namespaces" {
		if spec, ok := old["spec"]; ok {
			next["spec"] = unstructured.DeepCopy(spec)
		}
	}
	DefaultKind(group, version, plural, next)
	switch {
	case group == "apiextensions.k8s.io" && plural == "customresourcedefinitions":
		crd.KeepNames(next)
	case core && plural == "services":
		clusterip.KeepOnUpdate(next, old)
	default:
		defaulting.KeepOnUpdate(group, plural, next, old)
	}
}
