// SPDX-License-Identifier: Apache-2.0

package admission

import (
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// Request is what one write asks of the admission chain: the attributes
// kube-apiserver builds for it.
type Request struct {
	// Operation is CREATE, UPDATE or DELETE.
	Operation string
	// Group, Version, Resource, Subresource and Kind name what the request
	// addresses, as in its URL.
	Group, Version, Resource, Subresource, Kind string
	// KindGroup and KindVersion are the group and version of Kind when
	// they are not Group and Version: a subresource of a kind of its own
	// (pods/eviction is a policy/v1 Eviction).
	KindGroup, KindVersion string
	// Namespaced says the resource is namespace-scoped.
	Namespaced      bool
	Namespace, Name string
	// Object is the object being written (nil for DELETE); OldObject the
	// stored one (nil for CREATE). Both are in Version.
	Object, OldObject obj
	// NamespaceLabels are the labels of the request's namespace, which a
	// namespaceSelector matches (of the Namespace itself when the request
	// is about a Namespace).
	NamespaceLabels map[string]string
	// UserInfo is the review's userInfo: username, uid, groups.
	UserInfo obj
	DryRun   bool
	// Options is the review's options: CreateOptions, UpdateOptions or
	// DeleteOptions as the request gave them.
	Options obj
}

// Matches reports whether w is called for req: a rule matches its
// operation, group, version, resource and scope, and both selectors
// match. A webhook whose matchPolicy is Equivalent matches every
// version of a resource one of its rules names (see [Request]: kubetest
// then sends the object in the request's version).
func (w *Webhook) Matches(req *Request) bool {
	if !slices.ContainsFunc(w.Rules, func(r Rule) bool { return r.matches(req, w.MatchPolicy == "Equivalent") }) {
		return false
	}
	if !w.namespaceMatches(req) {
		return false
	}
	return objectMatches(w.ObjectSelector, req.Object) || objectMatches(w.ObjectSelector, req.OldObject)
}

func (r *Rule) matches(req *Request, anyVersion bool) bool {
	return listHas(r.Operations, req.Operation) && listHas(r.APIGroups, req.Group) &&
		(anyVersion || listHas(r.APIVersions, req.Version)) && r.resourceMatches(req) && r.scopeMatches(req)
}

// resourceMatches applies the rule's resources: "pods", "pods/status",
// "pods/*", "*/status", "*" (every resource, no subresource) and "*/*".
func (r *Rule) resourceMatches(req *Request) bool {
	for _, pattern := range r.Resources {
		res, sub, hasSub := cut(pattern)
		if (res == "*" || res == req.Resource) && ((!hasSub && req.Subresource == "") || (hasSub && (sub == "*" || sub == req.Subresource))) {
			return true
		}
	}
	return false
}

func (r *Rule) scopeMatches(req *Request) bool {
	switch r.Scope {
	case "Cluster":
		return !req.Namespaced
	case "Namespaced":
		return req.Namespaced
	}
	return true
}

// namespaceMatches applies the namespaceSelector as the real server does:
// to the labels of the request's namespace; a cluster-scoped object other
// than a Namespace always matches.
func (w *Webhook) namespaceMatches(req *Request) bool {
	if req.Group == "" && req.Resource == "namespaces" {
		return objectMatches(w.NamespaceSelector, req.Object) || objectMatches(w.NamespaceSelector, req.OldObject)
	}
	if !req.Namespaced {
		return true
	}
	return SelectorMatches(w.NamespaceSelector, req.NamespaceLabels)
}

func objectMatches(sel obj, o obj) bool {
	if o == nil {
		return false
	}
	labels, _ := unstructured.StringMap(unstructured.Metadata(o), "labels")
	return SelectorMatches(sel, labels)
}

// SelectorMatches reports whether labels satisfy the LabelSelector sel
// (matchLabels and matchExpressions with In, NotIn, Exists, DoesNotExist);
// an empty or missing selector matches everything.
func SelectorMatches(sel obj, labels map[string]string) bool {
	ml, _ := sel["matchLabels"].(obj)
	for k, v := range ml {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	exprs, _ := sel["matchExpressions"].([]any)
	for _, e := range exprs {
		m, _ := e.(obj)
		key := unstructured.String(m, "key")
		got, has := labels[key]
		values := stringList(m["values"])
		switch unstructured.String(m, "operator") {
		case "In":
			if !has || !slices.Contains(values, got) {
				return false
			}
		case "NotIn":
			if has && slices.Contains(values, got) {
				return false
			}
		case "Exists":
			if !has {
				return false
			}
		case "DoesNotExist":
			if has {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func listHas(l []string, v string) bool { return slices.Contains(l, "*") || slices.Contains(l, v) }

func cut(pattern string) (res, sub string, hasSub bool) {
	for i := range len(pattern) {
		if pattern[i] == '/' {
			return pattern[:i], pattern[i+1:], true
		}
	}
	return pattern, "", false
}
