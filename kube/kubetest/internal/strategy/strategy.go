// SPDX-License-Identifier: Apache-2.0

// Package strategy is what kube-apiserver 1.36's generic REST strategies
// do to an object written, whatever its kind: the metadata and status a
// write may not change ([PrepareUpdate]), the namespace of the body
// against the request's ([EnsureNamespace]), whether an update changes
// anything ([SameObject]) or bumps the generation ([SpecChanged]), and
// the finalizers a deletion waits for ([HasFinalizers], [NewFinalizers]).
// What each kind adds is in kind.go ([DefaultKind], [KeepOnUpdate],
// [PrepareNamespace]) and in the packages it calls.
//
// Guarantees:
//   - Nothing is kept; the functions modify only what their doc says.
package strategy

import (
	"reflect"
	"slices"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

type obj = map[string]any

// stringList returns m[k] as a list of strings (finalizers).
func stringList(m obj, k string) []string {
	in, _ := m[k].([]any)
	out := make([]string, 0, len(in))
	for _, v := range in {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// EnsureNamespace reconciles the namespace of the body with the request's,
// as rest.EnsureObjectNamespaceMatchesRequestNamespace does; false when
// they differ (the real server's 400).
func EnsureNamespace(meta obj, requestNS string) bool {
	bodyNS := unstructured.String(meta, "namespace")
	switch {
	case bodyNS == requestNS:
	case bodyNS == "":
		meta["namespace"] = requestNS
	case requestNS == "":
		delete(meta, "namespace")
	default:
		return false
	}
	if requestNS == "" {
		delete(meta, "namespace")
	}
	return true
}

// PrepareUpdate builds the object to store from the body o and the stored
// old, keeping what the client may not change through the endpoint of
// subresource sub ("", "status", "finalize"): the metadata the server
// owns, and for a kind with a status subresource (statusSub) the status;
// kind then applies the kind's own update strategy (not for "status").
// o may be modified and returned.
func PrepareUpdate(statusSub bool, sub string, o, old obj, kind func(next obj)) obj {
	oldMeta := unstructured.Metadata(old)
	if sub == "status" {
		next := unstructured.DeepCopy(old).(obj)
		if st, ok := o["status"]; ok {
			next["status"] = st
		} else {
			delete(next, "status")
		}
		return next
	}
	if sub == "finalize" {
		// A namespace's finalize subresource: the body but its status, and
		// its spec (its finalizers) too, which an update keeps.
		spec, hasSpec := o["spec"]
		next := PrepareUpdate(statusSub, "", o, old, kind)
		if hasSpec {
			next["spec"] = spec
		} else {
			delete(next, "spec")
		}
		return next
	}
	next := o
	KeepSystemMeta(unstructured.Metadata(next), oldMeta)
	if statusSub {
		if st, ok := old["status"]; ok {
			next["status"] = st
		} else {
			delete(next, "status")
		}
	}
	kind(next)
	return next
}

// KeepSystemMeta sets in meta the fields of oldMeta no update changes:
// uid, creationTimestamp, generation, deletion, managedFields (recorded
// apart), resourceVersion, and generateName unless meta has one.
func KeepSystemMeta(meta, oldMeta obj) {
	for _, k := range []string{"uid", "creationTimestamp", "generation", "deletionTimestamp",
		"deletionGracePeriodSeconds", "managedFields", "resourceVersion"} {
		if v, ok := oldMeta[k]; ok {
			meta[k] = v
		} else {
			delete(meta, k)
		}
	}
	if unstructured.String(meta, "generateName") == "" {
		if gn, ok := oldMeta["generateName"]; ok {
			meta["generateName"] = gn
		}
	}
}

// PrepareStatusUpdate builds the object a write to the status
// subresource stores, as the kinds' status strategies do in
// kube-apiserver 1.36: the body's status and metadata (its labels,
// annotations, finalizers and owner references; system fields kept),
// everything else as stored. A custom resource's (crd) status write
// keeps its stored metadata whole; the fields of resetMeta (a
// Deployment's labels, a Pod's owner references: StatusResetMeta) stay
// as stored.
func PrepareStatusUpdate(crd bool, resetMeta []string, o, old obj) obj {
	next := unstructured.DeepCopy(old).(obj)
	if st, ok := o["status"]; ok {
		next["status"] = st
	} else {
		delete(next, "status")
	}
	if crd {
		return next
	}
	oldMeta := unstructured.Metadata(old)
	meta := unstructured.Metadata(o)
	KeepSystemMeta(meta, oldMeta)
	for _, k := range resetMeta {
		if v, ok := oldMeta[k]; ok {
			meta[k] = unstructured.DeepCopy(v)
		} else {
			delete(meta, k)
		}
	}
	next["metadata"] = meta
	return next
}

// StatusResetMeta are the metadata fields a write to the status
// subresource of group's plural cannot change (the status strategy's
// reset fields).
func StatusResetMeta(group, plural string) []string {
	switch {
	case group == "apps" && plural == "deployments":
		return []string{"labels"}
	case group == "" && plural == "pods":
		return []string{"ownerReferences"}
	}
	return nil
}

// SameObject reports whether an update changes nothing but the
// resourceVersion, in which case the real server writes nothing.
func SameObject(old, next obj) bool {
	om, nm := unstructured.Metadata(old), unstructured.Metadata(next)
	orv, nrv := om["resourceVersion"], nm["resourceVersion"]
	delete(om, "resourceVersion")
	delete(nm, "resourceVersion")
	oav, nav := old["apiVersion"], next["apiVersion"]
	next["apiVersion"] = oav
	same := jsonpatch.Equal(old, next)
	next["apiVersion"] = nav
	restore := func(m obj, k string, v any) {
		if v != nil {
			m[k] = v
		}
	}
	restore(om, "resourceVersion", orv)
	restore(nm, "resourceVersion", nrv)
	return same
}

// SpecChanged reports whether anything but metadata (and status, for kinds
// with the status subresource: statusSub) differs: what bumps metadata.generation.
func SpecChanged(statusSub bool, old, next obj) bool {
	for k, v := range next {
		if k == "metadata" || k == "apiVersion" || (k == "status" && statusSub) {
			continue
		}
		if ov, ok := old[k]; !ok || !reflect.DeepEqual(ov, v) {
			return true
		}
	}
	for k := range old {
		if k == "metadata" || k == "apiVersion" || (k == "status" && statusSub) {
			continue
		}
		if _, ok := next[k]; !ok {
			return true
		}
	}
	return false
}

// HasFinalizers reports whether o still waits for a finalizer: one in
// metadata.finalizers, or for a namespace in spec.finalizers.
func HasFinalizers(o obj) bool {
	if len(stringList(unstructured.Metadata(o), "finalizers")) > 0 {
		return true
	}
	if unstructured.String(o, "kind") == "Namespace" {
		if spec, ok := o["spec"].(obj); ok && len(stringList(spec, "finalizers")) > 0 {
			return true
		}
	}
	return false
}

// NewFinalizers returns the finalizers of next that old does not have: an
// object being deleted may lose finalizers but not gain them.
func NewFinalizers(old, next []string) []string {
	var extra []string
	for _, f := range next {
		if !slices.Contains(old, f) && !slices.Contains(extra, f) {
			extra = append(extra, f)
		}
	}
	return extra
}

// SetFinalizers makes fins the finalizers of meta (an object's
// metadata), dropping the field when fins is empty.
func SetFinalizers(meta obj, fins []string) {
	if len(fins) == 0 {
		delete(meta, "finalizers")
	} else {
		meta["finalizers"] = unstructured.AnyList(fins)
	}
}

// MarkDeleting marks meta (an object's metadata) deleting at now (the
// API's time format), as the real server does when a finalizer holds
// the object: deletionTimestamp, deletionGracePeriodSeconds 0, and the
// generation of kinds that keep one bumped, so that GenerationChanged
// predicates see it.
func MarkDeleting(meta obj, now string) {
	if g, _ := unstructured.IntegerValue(meta["generation"]); g > 0 {
		meta["generation"] = g + 1
	}
	meta["deletionTimestamp"] = now
	meta["deletionGracePeriodSeconds"] = int64(0)
}
