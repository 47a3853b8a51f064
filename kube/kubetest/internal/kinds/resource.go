// SPDX-License-Identifier: Apache-2.0

// Package kinds describes the kinds kubetest serves: [Resource], what the
// server needs to know of one group/version/resource (names, scope,
// subresources, what its strategy does, its schema and printer), and
// [Builtins], the built-in kinds of kube-apiserver 1.36.3 as its
// discovery lists them, with the behaviour of each that clients see.
// CustomResourceDefinitions add Resources of their own (the server's
// crd.go). A [Registry] holds what a server serves, in discovery order,
// and the versions of each group in the order Kubernetes prefers them
// ([CompareVersions]).
//
// Guarantees:
//   - [Builtins] returns fresh values on each call: a caller may change
//     them (the server sets each one's Schema).
//   - The order of [Builtins] within a group version and of [Groups] is
//     the real server's discovery order.
//   - [Resource.Subresources] of a built-in are all those kube-apiserver
//     1.37.2 lists for it, in its order, served by kubetest or not.
package kinds

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/scale"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/table"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/validation"
)

// Resource describes one served group/version/resource: its names,
// scope, subresources, the strategy's behaviour the server carries out,
// its schema and printer. The server wraps it with the links between
// resources stored in one another's form.
type Resource struct {
	Group, Version, Plural, Singular, Kind, ListKind string
	Namespaced                                       bool
	ShortNames, Categories                           []string
	// Status says the kind has a /status subresource: writes to the main
	// resource keep the stored status, writes to /status keep the rest.
	Status bool
	// Generation says metadata.generation is kept (set to 1 on create,
	// incremented when anything but metadata and status changes).
	Generation bool
	Names      validation.NameRule
	// CreateOnUpdate says a PUT of a missing object creates it.
	CreateOnUpdate bool
	// ConditionalUpdate says a PUT must carry metadata.resourceVersion
	// (custom resources and CRDs).
	ConditionalUpdate bool
	// ReturnDeleted says DELETE answers with the object instead of a
	// Success Status (pods, services, serviceaccounts).
	ReturnDeleted bool
	// NoDeleteCollection drops the deletecollection verb (namespaces).
	NoDeleteCollection bool
	// Verbs, when set, are the verbs discovery lists instead of the
	// usual ones: "create" alone for the reviews (the server's registry.answered).
	Verbs []string
	// Deprecated is the Warning every request of a deprecated resource
	// is answered with, as kube-apiserver 1.36 warns; empty for the rest.
	Deprecated string
	// OrphanByDefault says a delete without a propagation policy orphans
	// the dependents (batch/v1 Jobs and core/v1 ReplicationControllers,
	// for backward compatibility) instead of deleting them in the
	// background.
	OrphanByDefault bool
	// Fields are the field selectors supported beyond metadata.name and
	// metadata.namespace, as dotted paths into the object.
	Fields []string
	// FieldPaths maps a field of Fields to the paths its value is read
	// from instead, the first present and not empty winning.
	FieldPaths map[string][]string
	// OwnFieldLabels says the kind has its own field label conversion, as
	// custom resources do: an unsupported field selector is refused with
	// "field label not supported" instead of the generic message.
	OwnFieldLabels bool
	// InitStatus, when set, is the status a create stores (the kind's
	// PrepareForCreate); kinds with Status and no InitStatus drop it.
	InitStatus func() map[string]any
	// KeepStatus says a create stores the status it is given, as the
	// kubelet registers a Node with its status, with the fields of
	// InitStatus it lacks.
	KeepStatus bool
	// CRD is the name of the CustomResourceDefinition that serves the kind,
	// empty for built-ins.
	CRD string
	// StorageVersion is the version objects are stored at; reads at another
	// version rewrite apiVersion, after the CRD's conversion webhook when it
	// has one (the server's, internal/conversion).
	StorageVersion string
	// MultiVersion says objects may be stored at another version than the
	// one requested (a CRD with several versions): reads rewrite apiVersion.
	MultiVersion bool
	// Printer makes the Table rows of a custom resource (its version's
	// additionalPrinterColumns); built-ins find theirs by name.
	Printer *table.Printer
	// Schema is the kind's compiled schema (internal/schema): captured for
	// built-ins, the CRD version's openAPIV3Schema for custom resources;
	// nil for a kind without one, which is then schemaless.
	Schema *schema.Schema
	// Scale, when set, says the kind has a scale subresource and where
	// its Scale's fields are (the server's scale.go).
	Scale *scale.Paths
}

// DiscoveryVerbs are the verbs discovery lists for the resource, in the real
// server's order: sorted for built-ins, as the CRD handler lists them for
// custom resources.
func (r *Resource) DiscoveryVerbs() []string {
	if r.Verbs != nil {
		return r.Verbs
	}
	if r.CRD != "" {
		return []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}
	}
	if r.NoDeleteCollection {
		return []string{"create", "delete", "get", "list", "patch", "update", "watch"}
	}
	return []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
}

// StorageVersionHash is what discovery reports: the first 8 bytes of the
// SHA-256 of "group/version/kind" at the storage version, in base64; of
// a built-in, the group and version kube-apiserver 1.37.2 stores it at
// (storedAs).
func (r *Resource) StorageVersionHash() string {
	group, version := r.Group, r.StorageVersion
	if r.CRD == "" {
		group, version = storedAs(r.Group, r.Plural, version)
	}
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + r.Kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// storedAs is the group and version the real server stores a built-in
// resource at, where they are not those it is served at (version):
// events.k8s.io's Events are core v1 Events, CRDs are stored as v1beta1,
// and the resources GA in 1.37 at their last beta. kubetest stores them
// as served; only their storageVersionHash says otherwise.
func storedAs(group, plural, version string) (string, string) {
	switch group + "/" + plural {
	case "events.k8s.io/events":
		return "", "v1"
	case "apiextensions.k8s.io/customresourcedefinitions", "certificates.k8s.io/clustertrustbundles",
		"certificates.k8s.io/podcertificaterequests", "storagemigration.k8s.io/storageversionmigrations":
		return group, "v1beta1"
	case "resource.k8s.io/devicetaintrules":
		return group, "v1beta2"
	}
	return group, version
}

// APIVersion is the resource's group/version as objects carry it.
func (r *Resource) APIVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// KindGroup is the group Invalid errors qualify the kind with. Events of
// events.k8s.io are core Events inside the real server, and their
// validation errors say so ("Event", not "Event.events.k8s.io").
func (r *Resource) KindGroup() string {
	if r.Group == "events.k8s.io" {
		return ""
	}
	return r.Group
}

// SupportsField reports whether f may be used in a field selector.
// Namespaces are the one kind whose own conversion leaves out
// metadata.namespace.
func (r *Resource) SupportsField(f string) bool {
	return f == "metadata.name" || (f == "metadata.namespace" && !(r.Group == "" && r.Plural == "namespaces")) || slices.Contains(r.Fields, f)
}

// FieldValue reads the selectable field f of o, and whether it is set.
func (r *Resource) FieldValue(o map[string]any, f string) (any, bool) {
	paths, ok := r.FieldPaths[f]
	if !ok {
		return unstructured.Path(o, f)
	}
	for _, p := range paths {
		if v, ok := unstructured.Path(o, p); ok && v != "" {
			return v, true
		}
	}
	return nil, false
}

// FieldNotSupported is the answer to a field selector on an unsupported
// field: the kind's own conversion's message, or the generic one.
func (r *Resource) FieldNotSupported(f string) string {
	if r.OwnFieldLabels || r.CRD != "" {
		return "field label not supported: " + f
	}
	return fmt.Sprintf("%q is not a known field selector: only %q, %q", f, "metadata.name", "metadata.namespace")
}
