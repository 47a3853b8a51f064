// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/autoscaling"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/conversion"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/events"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/minor"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
)

// This file holds the kinds the server serves: the built-in ones
// (internal/kinds) linked where one is stored in another's form, and the
// registry that CustomResourceDefinitions add to and remove from.

// resource is one served group/version/resource: its description
// (internal/kinds) and its links to the resource whose form it is stored
// in. It is immutable once registered; a CRD update registers new values.
type resource struct {
	kinds.Resource
	// Stored, when set, is the resource whose form the objects are
	// stored in: events.k8s.io/v1 Events are core v1 Events
	// (internal/events). ToStored converts a body to the stored form, FromStored
	// a stored object to this resource's; nil means no conversion.
	Stored               *resource
	ToStored, FromStored func(obj) obj
	// FieldAliases maps the field selectors of the resources stored in
	// this one's form to the fields they select.
	FieldAliases map[string]string
	// Conversion is the conversion webhook of a CRD's version that is not
	// its storage version (nil: versions differ only in apiVersion).
	Conversion *conversion.Webhook
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
	o["apiVersion"] = r.APIVersion()
	return o
}

// builtins returns the built-in kinds (internal/kinds), in discovery
// order within each group version, events.k8s.io/v1 Events linked to the
// core ones and autoscaling/v1 to v2. Each call returns fresh values.
func builtins() []*resource {
	var all []*resource
	for _, k := range kinds.Builtins() {
		all = append(all, &resource{Resource: *k})
	}
	find := func(group, version, plural string) *resource {
		i := slices.IndexFunc(all, func(r *resource) bool { return r.Group == group && r.Version == version && r.Plural == plural })
		return all[i]
	}
	linkEvents(find("", "v1", "events"), find("events.k8s.io", "v1", "events"))
	linkHPA(find("autoscaling", "v2", "horizontalpodautoscalers"), find("autoscaling", "v1", "horizontalpodautoscalers"))
	return all
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

// linkHPA makes v1 autoscalers be stored as the v2 ones.
func linkHPA(v2, v1 *resource) {
	v1.Stored, v1.StorageVersion = v2, v2.StorageVersion
	v1.ToStored, v1.FromStored = autoscaling.ToV2, autoscaling.ToV1
}

// registry holds the served resources. It is guarded by Server.mu.
type registry = kinds.Registry[*resource]

func newRegistry() *registry { return newRegistryAt(NewestMinor) }

// newRegistryAt returns the registry of the built-in resources the given
// minor serves (kinds.ServedSince), as that minor serves them.
func newRegistryAt(m int) *registry {
	reg := kinds.NewRegistry[*resource]()
	for _, r := range builtins() {
		if kinds.ServedSince(r.Group, r.Plural) > m {
			continue
		}
		r.Schema = schema.Builtin(r.Group, r.Version, r.Kind)
		facts := minor.Of(m, Version)
		kinds.AdjustToMinor(&r.Resource, m, facts.CRDTable, facts.OldTables)
		reg.Add(r)
	}
	for _, r := range answeredResources() {
		reg.AddAnswered(r)
	}
	return reg
}

func gvKey(group, version string) string { return group + "/" + version }
