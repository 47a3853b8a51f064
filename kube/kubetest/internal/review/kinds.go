// SPDX-License-Identifier: Apache-2.0

package review

// Kind is a review's resource path and kind.
type Kind struct {
	Group, Version, Plural, Kind string
	// Namespaced is true for a review asked in a namespace's path.
	Namespaced bool
	// AnyScope is true for a review answered in any path, namespaced or
	// not (the reviews a user makes of itself).
	AnyScope bool
}

// APIVersion is the apiVersion of k's objects.
func (k *Kind) APIVersion() string { return k.Group + "/" + k.Version }

// The review kinds.
var (
	Access  = Kind{Group: "authorization.k8s.io", Version: "v1", Plural: "selfsubjectaccessreviews", Kind: "SelfSubjectAccessReview"}
	Subject = Kind{Group: "authorization.k8s.io", Version: "v1", Plural: "subjectaccessreviews", Kind: "SubjectAccessReview"}
	Local   = Kind{Group: "authorization.k8s.io", Version: "v1", Plural: "localsubjectaccessreviews", Kind: "LocalSubjectAccessReview", Namespaced: true}
	Self    = Kind{Group: "authentication.k8s.io", Version: "v1", Plural: "selfsubjectreviews", Kind: "SelfSubjectReview", AnyScope: true}
	Rules   = Kind{Group: "authorization.k8s.io", Version: "v1", Plural: "selfsubjectrulesreviews", Kind: "SelfSubjectRulesReview", AnyScope: true}
	Token   = Kind{Group: "authentication.k8s.io", Version: "v1", Plural: "tokenreviews", Kind: "TokenReview"}
)

// All are the review kinds, in the order discovery lists them.
func All() []*Kind { return []*Kind{&Self, &Token, &Local, &Access, &Rules, &Subject} }

// Of returns the review collection a request's path names, nil for none:
// its group, version, resource and namespace, with no name and no
// subresource.
func Of(group, version, plural, subresource, name, namespace string) *Kind {
	if subresource != "" || name != "" {
		return nil
	}
	for _, k := range All() {
		if group == k.Group && version == k.Version && plural == k.Plural &&
			(k.AnyScope || (namespace != "") == k.Namespaced) {
			return k
		}
	}
	return nil
}
