// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/events"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/scale"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/table"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/validation"
)

// This file describes the kinds the server serves: the built-in table and
// the registry that CustomResourceDefinitions add to and remove from.

// resource is one served group/version/resource. It is immutable once
// registered; a CRD update registers new values.
type resource struct {
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
	// usual ones: "create" alone for the reviews (registry.answered).
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
	// version only rewrite apiVersion (conversion strategy None).
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
	// its Scale's fields are (scale.go).
	Scale *scale.Paths
	// Stored, when set, is the resource whose form the objects are
	// stored in: events.k8s.io/v1 Events are core v1 Events
	// (internal/events). ToStored converts a body to the stored form, FromStored
	// a stored object to this resource's; nil means no conversion.
	Stored               *resource
	ToStored, FromStored func(obj) obj
	// FieldAliases maps the field selectors of the resources stored in
	// this one's form to the fields they select.
	FieldAliases map[string]string
}

// apiVersion is the resource's group/version as objects carry it.
func (r *resource) apiVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// kindGroup is the group Invalid errors qualify the kind with. Events of
// events.k8s.io are core Events inside the real server, and their
// validation errors say so ("Event", not "Event.events.k8s.io").
func (r *resource) kindGroup() string {
	if r.Group == "events.k8s.io" {
		return ""
	}
	return r.Group
}

// storageAPIVersion is the apiVersion objects are stored with.
func (r *resource) storageAPIVersion() string {
	if r.Stored != nil {
		return r.Stored.storageAPIVersion()
	}
	if r.Group == "" {
		return r.StorageVersion
	}
	return r.Group + "/" + r.StorageVersion
}

// colKey names the storage of the resource: one per group and plural,
// shared by all versions.
func (r *resource) colKey() string {
	if r.Stored != nil {
		return r.Stored.colKey()
	}
	return r.Group + "/" + r.Plural
}

// stored is the resource whose form objects are stored in.
func (r *resource) stored() *resource {
	if r.Stored != nil {
		return r.Stored
	}
	return r
}

// toStored converts o, a body at r's version, to the stored form (its
// apiVersion is the caller's to set).
func (r *resource) toStored(o obj) obj {
	if r.ToStored == nil {
		return o
	}
	return r.ToStored(o)
}

// fromStored converts o, decoded from a record, to r's version.
func (r *resource) fromStored(o obj) obj {
	if r.FromStored == nil {
		return o
	}
	o = r.FromStored(o)
	o["apiVersion"] = r.apiVersion()
	return o
}

// verbs are the verbs discovery lists for the resource, in the real
// server's order: sorted for built-ins, as the CRD handler lists them for
// custom resources.
func (r *resource) verbs() []string {
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

// storageVersionHash is what discovery reports: the first 8 bytes of the
// SHA-256 of "group/version/kind" at the storage version, in base64.
func (r *resource) storageVersionHash() string {
	sum := sha256.Sum256([]byte(r.Group + "/" + r.StorageVersion + "/" + r.Kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// supportsField reports whether f may be used in a field selector.
// Namespaces are the one kind whose own conversion leaves out
// metadata.namespace.
func (r *resource) supportsField(f string) bool {
	return f == "metadata.name" || (f == "metadata.namespace" && !isNamespaces(r)) || slices.Contains(r.Fields, f)
}

// fieldValue reads the selectable field f of o, and whether it is set.
func (r *resource) fieldValue(o obj, f string) (any, bool) {
	paths, ok := r.FieldPaths[f]
	if !ok {
		return path(o, f)
	}
	for _, p := range paths {
		if v, ok := path(o, p); ok && v != "" {
			return v, true
		}
	}
	return nil, false
}

// errFieldNotSupported is the answer to a field selector on an unsupported
// field: the kind's own conversion's message, or the generic one.
func (r *resource) errFieldNotSupported(f string) string {
	if r.OwnFieldLabels || r.CRD != "" {
		return "field label not supported: " + f
	}
	return fmt.Sprintf("%q is not a known field selector: only %q, %q", f, "metadata.name", "metadata.namespace")
}

// builtins returns the built-in kinds, in discovery order within each
// group version. Each call returns fresh values.
func builtins() []*resource {
	all := slices.Concat(coreBuiltins(), workloadBuiltins(), apiBuiltins())
	var coreEvents, eventsEvents *resource
	for _, r := range all {
		if r.Plural == "events" && r.Group == "" {
			coreEvents = r
		} else if r.Plural == "events" {
			eventsEvents = r
		}
	}
	linkEvents(coreEvents, eventsEvents)
	return append(all, genericBuiltins()...)
}

// coreBuiltins are the built-in kinds of the core group (v1).
func coreBuiltins() []*resource {
	return []*resource{
		coreKind(resource{Plural: "configmaps", Singular: "configmap", Kind: "ConfigMap", Namespaced: true,
			ShortNames: []string{"cm"}}),
		coreKind(resource{Plural: "endpoints", Singular: "endpoints", Kind: "Endpoints", Namespaced: true,
			ShortNames: []string{"ep"}, CreateOnUpdate: true,
			Deprecated: "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"}),
		coreKind(resource{Plural: "events", Singular: "event", Kind: "Event", Namespaced: true,
			ShortNames: []string{"ev"}, CreateOnUpdate: true, OwnFieldLabels: true,
			Fields: []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
				"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
				"involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"},
			FieldPaths: map[string][]string{"source": {"source.component", "reportingComponent"}}}),
		coreKind(resource{Plural: "limitranges", Singular: "limitrange", Kind: "LimitRange", Namespaced: true,
			ShortNames: []string{"limits"}, CreateOnUpdate: true}),
		coreKind(resource{Plural: "namespaces", Singular: "namespace", Kind: "Namespace",
			ShortNames: []string{"ns"}, Status: true, Names: validation.NameLabel, NoDeleteCollection: true,
			Fields: []string{"status.phase"}, OwnFieldLabels: true,
			InitStatus: func() map[string]any { return map[string]any{"phase": "Active"} }}),
		coreKind(resource{Plural: "persistentvolumeclaims", Singular: "persistentvolumeclaim", Kind: "PersistentVolumeClaim",
			Namespaced: true, ShortNames: []string{"pvc"}, Status: true,
			InitStatus: func() map[string]any { return map[string]any{"phase": "Pending"} }}),
		coreKind(resource{Plural: "persistentvolumes", Singular: "persistentvolume", Kind: "PersistentVolume",
			ShortNames: []string{"pv"}, Status: true,
			InitStatus: func() map[string]any { return map[string]any{"phase": "Pending"} }}),
		coreKind(resource{Plural: "pods", Singular: "pod", Kind: "Pod", Namespaced: true,
			ShortNames: []string{"po"}, Categories: []string{"all"}, Status: true, Generation: true,
			ReturnDeleted: true, OwnFieldLabels: true,
			Fields: []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
				"spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP",
				"status.nominatedNodeName"},
			InitStatus: func() map[string]any { return map[string]any{"phase": "Pending"} }}),
		coreKind(resource{Plural: "replicationcontrollers", Singular: "replicationcontroller", Kind: "ReplicationController",
			Namespaced: true, ShortNames: []string{"rc"}, Categories: []string{"all"}, Status: true, Generation: true,
			OrphanByDefault: true, InitStatus: func() map[string]any { return map[string]any{"replicas": int64(0)} }}),
		coreKind(resource{Plural: "resourcequotas", Singular: "resourcequota", Kind: "ResourceQuota", Namespaced: true,
			ShortNames: []string{"quota"}, Status: true,
			InitStatus: func() map[string]any { return map[string]any{} }}),
		coreKind(resource{Plural: "secrets", Singular: "secret", Kind: "Secret", Namespaced: true,
			Fields: []string{"type"}, OwnFieldLabels: true}),
		coreKind(resource{Plural: "serviceaccounts", Singular: "serviceaccount", Kind: "ServiceAccount",
			Namespaced: true, ShortNames: []string{"sa"}, CreateOnUpdate: true, ReturnDeleted: true}),
		coreKind(resource{Plural: "services", Singular: "service", Kind: "Service", Namespaced: true,
			ShortNames: []string{"svc"}, Categories: []string{"all"}, Status: true, Names: validation.NameDNS1035,
			CreateOnUpdate: true, ReturnDeleted: true,
			Fields: []string{"spec.clusterIP", "spec.type"}, OwnFieldLabels: true,
			InitStatus: func() map[string]any { return map[string]any{"loadBalancer": map[string]any{}} }}),
	}
}

// workloadBuiltins are the built-in kinds of apps and batch.
func workloadBuiltins() []*resource {
	return []*resource{
		groupKind("apps", resource{Plural: "controllerrevisions", Singular: "controllerrevision", Kind: "ControllerRevision",
			Namespaced: true}),
		groupKind("apps", resource{Plural: "daemonsets", Singular: "daemonset", Kind: "DaemonSet",
			Namespaced: true, ShortNames: []string{"ds"}, Categories: []string{"all"}, Status: true, Generation: true,
			InitStatus: func() map[string]any {
				return map[string]any{"currentNumberScheduled": int64(0), "desiredNumberScheduled": int64(0),
					"numberMisscheduled": int64(0), "numberReady": int64(0)}
			}}),
		groupKind("apps", resource{Plural: "deployments", Singular: "deployment", Kind: "Deployment",
			Namespaced: true, ShortNames: []string{"deploy"}, Categories: []string{"all"},
			Status: true, Generation: true, Scale: scale.Workload(),
			InitStatus: func() map[string]any { return map[string]any{} }}),
		groupKind("apps", resource{Plural: "replicasets", Singular: "replicaset", Kind: "ReplicaSet",
			Namespaced: true, ShortNames: []string{"rs"}, Categories: []string{"all"},
			Status: true, Generation: true, Scale: scale.Workload(),
			InitStatus: func() map[string]any { return map[string]any{"replicas": int64(0)} }}),
		groupKind("apps", resource{Plural: "statefulsets", Singular: "statefulset", Kind: "StatefulSet",
			Namespaced: true, ShortNames: []string{"sts"}, Categories: []string{"all"},
			Status: true, Generation: true, Scale: scale.Workload(),
			InitStatus: func() map[string]any { return map[string]any{"availableReplicas": int64(0), "replicas": int64(0)} }}),
		groupKind("batch", resource{Plural: "cronjobs", Singular: "cronjob", Kind: "CronJob",
			Namespaced: true, ShortNames: []string{"cj"}, Categories: []string{"all"}, Status: true, Generation: true,
			InitStatus: func() map[string]any { return map[string]any{} }}),
		groupKind("batch", resource{Plural: "jobs", Singular: "job", Kind: "Job",
			Namespaced: true, Categories: []string{"all"}, Status: true, Generation: true, OrphanByDefault: true,
			InitStatus: func() map[string]any { return map[string]any{} }}),
	}
}

// apiBuiltins are the built-in kinds of networking, events,
// apiextensions and coordination.
func apiBuiltins() []*resource {
	return []*resource{
		groupKind("networking.k8s.io", resource{Plural: "ingresses", Singular: "ingress", Kind: "Ingress",
			Namespaced: true, ShortNames: []string{"ing"}, Status: true, Generation: true,
			InitStatus: func() map[string]any { return map[string]any{"loadBalancer": map[string]any{}} }}),
		groupKind("events.k8s.io", resource{Plural: "events", Singular: "event", Kind: "Event",
			Namespaced: true, ShortNames: []string{"ev"}, CreateOnUpdate: true, OwnFieldLabels: true,
			Fields: []string{"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid",
				"regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath", "reason",
				"reportingController", "type"}}),
		groupKind("apiextensions.k8s.io", resource{Plural: "customresourcedefinitions",
			Singular: "customresourcedefinition", Kind: "CustomResourceDefinition",
			ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"},
			Status: true, Generation: true, ConditionalUpdate: true}),
		groupKind("coordination.k8s.io", resource{Plural: "leases", Singular: "lease", Kind: "Lease",
			Namespaced: true, CreateOnUpdate: true}),
	}
}

// linkEvents makes events.k8s.io/v1 Events a view of the core Events'
// storage.
func linkEvents(core, eventsV1 *resource) {
	core.ToStored = events.ToCore
	core.FieldAliases = events.FieldAliases()
	eventsV1.Stored = core
	eventsV1.ToStored = events.ToCore
	eventsV1.FromStored = events.ToEvents
}

// coreKind is r in the core group at v1.
func coreKind(r resource) *resource { r.Version, r.StorageVersion = "v1", "v1"; return &r }

// groupKind is r in group g at v1.
func groupKind(g string, r resource) *resource {
	r.Group, r.Version, r.StorageVersion = g, "v1", "v1"
	return &r
}

// builtinGroups returns the built-in groups in the order /apis lists them,
// as the real server does (by priority); CRD groups follow, sorted.
func builtinGroups() []string {
	return []string{"apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io", "authorization.k8s.io",
		"autoscaling", "batch", "certificates.k8s.io", "networking.k8s.io", "policy", "rbac.authorization.k8s.io",
		"storage.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io",
		"coordination.k8s.io", "node.k8s.io", "discovery.k8s.io", "resource.k8s.io", "flowcontrol.apiserver.k8s.io",
		"storagemigration.k8s.io"}
}

// registry holds the served resources. It is guarded by Server.mu.
type registry struct {
	// byGV maps "group/version" to its resources in discovery order.
	byGV map[string][]*resource
	// groups lists groups with at least one served version: built-ins in
	// builtinGroups order, then CRD groups in order of name.
	crdGroups []string
	// answered maps "group/version" to the resources answered by a
	// handler of their own and never stored (the reviews): discovery
	// lists them with byGV's, nothing else sees them.
	answered map[string][]*resource
}

func newRegistry() *registry { return newRegistryAt(NewestMinor) }

// newRegistryAt returns the registry of the built-in resources the given
// minor serves (servedSince).
func newRegistryAt(minor int) *registry {
	reg := &registry{byGV: map[string][]*resource{}, answered: map[string][]*resource{}}
	for _, r := range builtins() {
		if servedSince(r.Group, r.Plural) > minor {
			continue
		}
		r.Schema = schema.Builtin(r.Group, r.Version, r.Kind)
		adjustToMinor(r, minor)
		reg.add(r)
	}
	for _, r := range answeredResources() {
		k := gvKey(r.Group, r.Version)
		reg.answered[k] = append(reg.answered[k], r)
	}
	return reg
}

func gvKey(group, version string) string { return group + "/" + version }

// add registers r, replacing a resource of the same group, version and
// plural.
func (g *registry) add(r *resource) {
	k := gvKey(r.Group, r.Version)
	list := g.byGV[k]
	for i, old := range list {
		if old.Plural == r.Plural {
			list[i] = r
			return
		}
	}
	g.byGV[k] = append(list, r)
	if r.CRD != "" && !slices.Contains(g.crdGroups, r.Group) && !slices.Contains(builtinGroups(), r.Group) {
		g.crdGroups = append(g.crdGroups, r.Group)
		slices.Sort(g.crdGroups)
	}
}

// removeCRD unregisters every resource served by the CRD named crd.
func (g *registry) removeCRD(crd string) {
	for k, list := range g.byGV {
		list = slices.DeleteFunc(list, func(r *resource) bool { return r.CRD == crd })
		if len(list) == 0 {
			delete(g.byGV, k)
		} else {
			g.byGV[k] = list
		}
	}
	g.crdGroups = slices.DeleteFunc(g.crdGroups, func(group string) bool { return len(g.versions(group)) == 0 })
}

// crdOnly reports whether group is served by CRDs alone: kube-apiserver's
// apiextensions handler passes what they do not serve to the mux, which
// answers a plain 404, where a built-in group answers a NotFound Status.
func (g *registry) crdOnly(group string) bool { return slices.Contains(g.crdGroups, group) }

// lookup finds a served resource by group, version and plural.
func (g *registry) lookup(group, version, plural string) *resource {
	for _, r := range g.byGV[gvKey(group, version)] {
		if r.Plural == plural {
			return r
		}
	}
	return nil
}

// byKind finds a served resource by group, version and kind.
func (g *registry) byKind(group, version, kind string) *resource {
	for _, r := range g.byGV[gvKey(group, version)] {
		if r.Kind == kind {
			return r
		}
	}
	return nil
}

// groups returns the non-core groups in the order /apis lists them.
func (g *registry) groups() []string {
	var out []string
	for _, grp := range builtinGroups() {
		if len(g.versions(grp)) > 0 {
			out = append(out, grp)
		}
	}
	return append(out, g.crdGroups...)
}

// listed returns what discovery lists of a group version: the stored
// resources, then the answered ones.
func (g *registry) listed(group, version string) []*resource {
	k := gvKey(group, version)
	return slices.Concat(g.byGV[k], g.answered[k])
}

// versions returns the served versions of group, preferred first: the
// Kubernetes version order (v2 before v1, v1 before v1beta1).
func (g *registry) versions(group string) []string {
	var out []string
	for _, m := range []map[string][]*resource{g.byGV, g.answered} {
		for k := range m {
			if grp, v := splitGV(k); grp == group && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	slices.SortFunc(out, compareKubeVersions)
	return out
}

func splitGV(k string) (group, version string) {
	for i := len(k) - 1; i >= 0; i-- {
		if k[i] == '/' {
			return k[:i], k[i+1:]
		}
	}
	return "", k
}
