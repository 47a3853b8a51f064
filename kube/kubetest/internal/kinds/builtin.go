// SPDX-License-Identifier: Apache-2.0

package kinds

import (
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/scale"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/validation"
)

// Builtins returns the built-in kinds, in discovery order within each
// group version: those with behaviour of their own (this file), then the
// stored-only ones (generic.go). Each call returns fresh values.
func Builtins() []*Resource {
	return slices.Concat(coreBuiltins(), workloadBuiltins(), apiBuiltins(), genericKinds())
}

// coreBuiltins are the built-in kinds of the core group (v1).
func coreBuiltins() []*Resource {
	return []*Resource{
		coreKind(Resource{Plural: "configmaps", Singular: "configmap", Kind: "ConfigMap", Namespaced: true,
			ShortNames: []string{"cm"}}),
		coreKind(Resource{Plural: "endpoints", Singular: "endpoints", Kind: "Endpoints", Namespaced: true,
			ShortNames: []string{"ep"}, CreateOnUpdate: true,
			Deprecated: "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"}),
		coreKind(Resource{Plural: "events", Singular: "event", Kind: "Event", Namespaced: true,
			ShortNames: []string{"ev"}, CreateOnUpdate: true, OwnFieldLabels: true,
			Fields: []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
				"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
				"involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"},
			FieldPaths: map[string][]string{"source": {"source.component", "reportingComponent"}}}),
		coreKind(Resource{Plural: "limitranges", Singular: "limitrange", Kind: "LimitRange", Namespaced: true,
			ShortNames: []string{"limits"}, CreateOnUpdate: true}),
		coreKind(Resource{Plural: "namespaces", Singular: "namespace", Kind: "Namespace",
			ShortNames: []string{"ns"}, Status: true, Names: validation.NameLabel, NoDeleteCollection: true,
			Fields: []string{"status.phase"}, OwnFieldLabels: true,
			InitStatus: func() map[string]any { return map[string]any{"phase": "Active"} }}),
		coreKind(Resource{Plural: "persistentvolumeclaims", Singular: "persistentvolumeclaim", Kind: "PersistentVolumeClaim",
			Namespaced: true, ShortNames: []string{"pvc"}, Status: true,
			InitStatus: func() map[string]any { return map[string]any{"phase": "Pending"} }}),
		coreKind(Resource{Plural: "persistentvolumes", Singular: "persistentvolume", Kind: "PersistentVolume",
			ShortNames: []string{"pv"}, Status: true,
			InitStatus: func() map[string]any { return map[string]any{"phase": "Pending"} }}),
		coreKind(Resource{Plural: "pods", Singular: "pod", Kind: "Pod", Namespaced: true,
			ShortNames: []string{"po"}, Categories: []string{"all"}, Status: true, Generation: true,
			ReturnDeleted: true, OwnFieldLabels: true,
			Fields: []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
				"spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP",
				"status.nominatedNodeName"},
			InitStatus: func() map[string]any { return map[string]any{"phase": "Pending"} }}),
		coreKind(Resource{Plural: "replicationcontrollers", Singular: "replicationcontroller", Kind: "ReplicationController",
			Namespaced: true, ShortNames: []string{"rc"}, Categories: []string{"all"}, Status: true, Generation: true,
			Scale: scale.ReplicationController(), OrphanByDefault: true, InitStatus: func() map[string]any { return map[string]any{"replicas": int64(0)} }}),
		coreKind(Resource{Plural: "resourcequotas", Singular: "resourcequota", Kind: "ResourceQuota", Namespaced: true,
			ShortNames: []string{"quota"}, Status: true,
			InitStatus: func() map[string]any { return map[string]any{} }}),
		coreKind(Resource{Plural: "secrets", Singular: "secret", Kind: "Secret", Namespaced: true,
			Fields: []string{"type"}, OwnFieldLabels: true}),
		coreKind(Resource{Plural: "serviceaccounts", Singular: "serviceaccount", Kind: "ServiceAccount",
			Namespaced: true, ShortNames: []string{"sa"}, CreateOnUpdate: true, ReturnDeleted: true}),
		coreKind(Resource{Plural: "services", Singular: "service", Kind: "Service", Namespaced: true,
			ShortNames: []string{"svc"}, Categories: []string{"all"}, Status: true, Names: validation.NameDNS1035,
			CreateOnUpdate: true, ReturnDeleted: true,
			Fields: []string{"spec.clusterIP", "spec.type"}, OwnFieldLabels: true,
			InitStatus: func() map[string]any { return map[string]any{"loadBalancer": map[string]any{}} }}),
	}
}

// workloadBuiltins are the built-in kinds of apps and batch.
func workloadBuiltins() []*Resource {
	return []*Resource{
		groupKind("apps", Resource{Plural: "controllerrevisions", Singular: "controllerrevision", Kind: "ControllerRevision",
			Namespaced: true}),
		groupKind("apps", Resource{Plural: "daemonsets", Singular: "daemonset", Kind: "DaemonSet",
			Namespaced: true, ShortNames: []string{"ds"}, Categories: []string{"all"}, Status: true, Generation: true,
			InitStatus: func() map[string]any {
				return map[string]any{"currentNumberScheduled": int64(0), "desiredNumberScheduled": int64(0),
					"numberMisscheduled": int64(0), "numberReady": int64(0)}
			}}),
		groupKind("apps", Resource{Plural: "deployments", Singular: "deployment", Kind: "Deployment",
			Namespaced: true, ShortNames: []string{"deploy"}, Categories: []string{"all"},
			Status: true, Generation: true, Scale: scale.Workload(),
			InitStatus: func() map[string]any { return map[string]any{} }}),
		groupKind("apps", Resource{Plural: "replicasets", Singular: "replicaset", Kind: "ReplicaSet",
			Namespaced: true, ShortNames: []string{"rs"}, Categories: []string{"all"},
			Status: true, Generation: true, Scale: scale.Workload(),
			InitStatus: func() map[string]any { return map[string]any{"replicas": int64(0)} }}),
		groupKind("apps", Resource{Plural: "statefulsets", Singular: "statefulset", Kind: "StatefulSet",
			Namespaced: true, ShortNames: []string{"sts"}, Categories: []string{"all"},
			Status: true, Generation: true, Scale: scale.Workload(),
			InitStatus: func() map[string]any { return map[string]any{"availableReplicas": int64(0), "replicas": int64(0)} }}),
		groupKind("batch", Resource{Plural: "cronjobs", Singular: "cronjob", Kind: "CronJob",
			Namespaced: true, ShortNames: []string{"cj"}, Categories: []string{"all"}, Status: true, Generation: true,
			InitStatus: func() map[string]any { return map[string]any{} }}),
		groupKind("batch", Resource{Plural: "jobs", Singular: "job", Kind: "Job",
			Namespaced: true, Categories: []string{"all"}, Status: true, Generation: true, OrphanByDefault: true,
			InitStatus: func() map[string]any { return map[string]any{} }}),
	}
}

// apiBuiltins are the built-in kinds of networking, events,
// apiextensions and coordination.
func apiBuiltins() []*Resource {
	return []*Resource{
		groupKind("networking.k8s.io", Resource{Plural: "ingresses", Singular: "ingress", Kind: "Ingress",
			Namespaced: true, ShortNames: []string{"ing"}, Status: true, Generation: true,
			InitStatus: func() map[string]any { return map[string]any{"loadBalancer": map[string]any{}} }}),
		groupKind("events.k8s.io", Resource{Plural: "events", Singular: "event", Kind: "Event",
			Namespaced: true, ShortNames: []string{"ev"}, CreateOnUpdate: true, OwnFieldLabels: true,
			Fields: []string{"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid",
				"regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath", "reason",
				"reportingController", "type"}}),
		groupKind("apiextensions.k8s.io", Resource{Plural: "customresourcedefinitions",
			Singular: "customresourcedefinition", Kind: "CustomResourceDefinition",
			ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"},
			Status: true, Generation: true, ConditionalUpdate: true}),
		groupKind("coordination.k8s.io", Resource{Plural: "leases", Singular: "lease", Kind: "Lease",
			Namespaced: true, CreateOnUpdate: true}),
	}
}

// coreKind is r in the core group at v1.
func coreKind(r Resource) *Resource { r.Version, r.StorageVersion = "v1", "v1"; return &r }

// groupKind is r in group g at v1.
func groupKind(g string, r Resource) *Resource {
	r.Group, r.Version, r.StorageVersion = g, "v1", "v1"
	return &r
}

// Groups returns the built-in groups in the order /apis lists them,
// as the real server does (by priority); CRD groups follow, sorted.
func Groups() []string {
	return []string{"apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io", "authorization.k8s.io",
		"autoscaling", "batch", "certificates.k8s.io", "networking.k8s.io", "policy", "rbac.authorization.k8s.io",
		"storage.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io",
		"coordination.k8s.io", "node.k8s.io", "discovery.k8s.io", "resource.k8s.io", "flowcontrol.apiserver.k8s.io",
		"storagemigration.k8s.io"}
}
