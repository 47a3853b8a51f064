// SPDX-License-Identifier: Apache-2.0

package mirror

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
)

// This file decides where a source is copied to, from its annotations and
// the namespaces that exist. Nothing here does I/O.

// The annotations a user puts on a source, the finalizer the mirror puts
// there, and the labels it puts on every copy.
const (
	// AnnotationTo lists target namespaces: "team-a,team-b".
	AnnotationTo = "kubeloop.dev/mirror-to"
	// AnnotationToSelector selects target namespaces by their labels:
	// "mirror=yes" or "team in (a,b)".
	AnnotationToSelector = "kubeloop.dev/mirror-to-selector"
	// Finalizer holds a source until its copies are deleted.
	Finalizer = "kubeloop.dev/mirror"

	LabelOfNamespace = "kubeloop.dev/mirror-of-namespace"
	LabelOfName      = "kubeloop.dev/mirror-of-name"
	LabelOfKind      = "kubeloop.dev/mirror-of-kind"
)

// isSource reports whether an object asks to be mirrored. A copy never is,
// whatever its annotations say: the mirror does not mirror its own output.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func isSource(m *kube.ObjectMeta) bool {
	if isCopy(m) {
		return false
	}
	_, to := m.Annotations[AnnotationTo]
	_, sel := m.Annotations[AnnotationToSelector]
	return to || sel
}

// isCopy reports whether an object carries the labels of a copy.
func isCopy(m *kube.ObjectMeta) bool {
	_, ns := m.Labels[LabelOfNamespace]
	_, name := m.Labels[LabelOfName]
	return ns || name
}

// sourceOf returns the key of the source a copy of kind was made from, and
// false for objects that are not copies of that kind.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func sourceOf(m *kube.ObjectMeta, kind string) (kube.Key, bool) {
	if m.Labels[LabelOfKind] != kind || m.Labels[LabelOfNamespace] == "" || m.Labels[LabelOfName] == "" {
		return kube.Key{}, false
	}
	return kube.Key{Namespace: m.Labels[LabelOfNamespace], Name: m.Labels[LabelOfName]}, true
}

// targetSpec is what a source's annotations ask for.
type targetSpec struct {
	names    []string      // from AnnotationTo
	selector kube.Selector // from AnnotationToSelector
	hasSel   bool
}

// parseTargets reads a source's annotations. An empty selector annotation
// selects nothing (not every namespace: that has to be asked for with an
// explicit selector such as "kubernetes.io/metadata.name").
func parseTargets(annotations map[string]string) (targetSpec, error) {
	var spec targetSpec
	var errs []error
	for _, n := range strings.Split(annotations[AnnotationTo], ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !IsNamespaceName(n) {
			errs = append(errs, fmt.Errorf("annotation %s: %q is not a namespace name", AnnotationTo, n))
			continue
		}
		if !slices.Contains(spec.names, n) {
			spec.names = append(spec.names, n)
		}
	}
	if s, ok := annotations[AnnotationToSelector]; ok && strings.TrimSpace(s) != "" {
		sel, err := kube.ParseSelector(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("annotation %s: %w", AnnotationToSelector, err))
		} else {
			spec.selector, spec.hasSel = sel, true
		}
	}
	return spec, errors.Join(errs...)
}

// wants reports whether the spec targets namespace ns.
func (s targetSpec) wants(ns *kube.ObjectMeta) bool {
	return slices.Contains(s.names, ns.Name) || s.hasSel && s.selector.Matches(ns.Labels)
}

// targets returns the namespaces a source in namespace home is copied to:
// those the spec names or selects, that exist and are not terminating,
// except home itself. The result is sorted.
func targets(spec targetSpec, home string, namespaces []kube.PartialObjectMetadata) []string {
	var out []string
	for i := range namespaces {
		ns := &namespaces[i].ObjectMeta
		if ns.Name == home || ns.DeletionTimestamp != nil || !spec.wants(ns) {
			continue
		}
		out = append(out, ns.Name)
	}
	slices.Sort(out)
	return out
}

// IsNamespaceName reports whether s is a valid namespace name (an RFC 1123
// label).
func IsNamespaceName(s string) bool {
	if len(s) == 0 || len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		if !alnum && (c != '-' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}
