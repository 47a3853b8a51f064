// SPDX-License-Identifier: Apache-2.0

package kinds

import (
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/validation"
)

// This file lists the built-in kinds kubetest stores and validates only:
// no controller, admission or registry behaviour of their own beyond the
// real strategy's generation and the status a create stores. Their names,
// scope, short names and categories are those of kube-apiserver 1.37.2's
// discovery (testdata/discovery.json), their schemas those captured from
// it (internal/schema/openapi). PodDisruptionBudgets are also read and
// charged by pods/eviction (internal/disruption's Evict).

// emptyStatus is the status a create stores for kinds whose status has
// only optional fields: the real strategy resets it and it encodes as {}.
func emptyStatus() map[string]any { return map[string]any{} }

// generic returns the stored-only built-in kinds, each at v1 of its
// group (autoscaling at v2 and v1: the server stores v1 as v2).
func genericKinds() []*Resource {
	return slices.Concat(extensionKinds(), clusterKinds(), accessAndStorageKinds())
}

// Groups of the generic kinds.
const (
	groupAdmission  = "admissionregistration.k8s.io"
	groupNetworking = "networking.k8s.io"
	groupFlow       = "flowcontrol.apiserver.k8s.io"
	groupRBAC       = "rbac.authorization.k8s.io"
	groupDRA        = "resource.k8s.io"
	groupStorage    = "storage.k8s.io"
)

// extensionKinds are the generic kinds of the core group, admission and
// API registration.
func extensionKinds() []*Resource {
	return []*Resource{
		generic("", false, "nodes", "node", "Node", withShort("no"), withStatus(nodeStatus), withKeepStatus),
		generic("", true, "podtemplates", "podtemplate", "PodTemplate", withGeneration),
		generic(groupAdmission, false, "mutatingadmissionpolicies", "mutatingadmissionpolicy", "MutatingAdmissionPolicy",
			withCategory("api-extensions"), withGeneration),
		generic(groupAdmission, false, "mutatingadmissionpolicybindings", "mutatingadmissionpolicybinding",
			"MutatingAdmissionPolicyBinding", withCategory("api-extensions"), withGeneration),
		generic(groupAdmission, false, "mutatingwebhookconfigurations", "mutatingwebhookconfiguration",
			"MutatingWebhookConfiguration", withCategory("api-extensions"), withGeneration),
		generic(groupAdmission, false, "validatingadmissionpolicies", "validatingadmissionpolicy", "ValidatingAdmissionPolicy",
			withCategory("api-extensions"), withGeneration, withStatus(emptyStatus)),
		generic(groupAdmission, false, "validatingadmissionpolicybindings", "validatingadmissionpolicybinding",
			"ValidatingAdmissionPolicyBinding", withCategory("api-extensions"), withGeneration),
		generic(groupAdmission, false, "validatingwebhookconfigurations", "validatingwebhookconfiguration",
			"ValidatingWebhookConfiguration", withCategory("api-extensions"), withGeneration),
		generic("apiregistration.k8s.io", false, "apiservices", "apiservice", "APIService",
			withCategory("api-extensions"), withStatus(emptyStatus)),
	}
}

// clusterKinds are the generic kinds of autoscaling, certificates,
// discovery, flow control, networking, node and policy.
func clusterKinds() []*Resource {
	return []*Resource{
		generic("autoscaling", true, "horizontalpodautoscalers", "horizontalpodautoscaler", "HorizontalPodAutoscaler", atV2,
			withShort("hpa"), withCategory("all"), withStatus(func() map[string]any {
				return map[string]any{"currentMetrics": nil, "desiredReplicas": int64(0)}
			})),
		generic("autoscaling", true, "horizontalpodautoscalers", "horizontalpodautoscaler", "HorizontalPodAutoscaler",
			withShort("hpa"), withCategory("all"), withStatus(func() map[string]any {
				return map[string]any{"desiredReplicas": int64(0)}
			})),
		generic("certificates.k8s.io", false, "certificatesigningrequests", "certificatesigningrequest",
			"CertificateSigningRequest", withShort("csr"), withStatus(emptyStatus)),
		generic("certificates.k8s.io", false, "clustertrustbundles", "clustertrustbundle", "ClusterTrustBundle"),
		generic("certificates.k8s.io", true, "podcertificaterequests", "podcertificaterequest", "PodCertificateRequest",
			withStatus(emptyStatus)),
		generic("discovery.k8s.io", true, "endpointslices", "endpointslice", "EndpointSlice", withGeneration),
		generic(groupFlow, false, "flowschemas", "flowschema", "FlowSchema", withGeneration, withStatus(emptyStatus)),
		generic(groupFlow, false, "prioritylevelconfigurations", "prioritylevelconfiguration", "PriorityLevelConfiguration",
			withGeneration, withStatus(emptyStatus)),
		generic(groupNetworking, false, "ingressclasses", "ingressclass", "IngressClass", withGeneration),
		generic(groupNetworking, false, "ipaddresses", "ipaddress", "IPAddress", withShort("ip")),
		generic(groupNetworking, true, "networkpolicies", "networkpolicy", "NetworkPolicy", withShort("netpol"), withGeneration),
		generic(groupNetworking, false, "servicecidrs", "servicecidr", "ServiceCIDR", withStatus(emptyStatus)),
		generic("node.k8s.io", false, "runtimeclasses", "runtimeclass", "RuntimeClass"),
		generic("policy", true, "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", withShort("pdb"),
			withGeneration, withStatus(func() map[string]any {
				return map[string]any{"currentHealthy": int64(0), "desiredHealthy": int64(0),
					"disruptionsAllowed": int64(0), "expectedPods": int64(0)}
			})),
	}
}

// accessAndStorageKinds are the generic kinds of RBAC, dynamic resource
// allocation, scheduling and storage.
func accessAndStorageKinds() []*Resource {
	return []*Resource{
		generic(groupRBAC, false, "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", withPathSegmentNames),
		generic(groupRBAC, false, "clusterroles", "clusterrole", "ClusterRole", withPathSegmentNames),
		generic(groupRBAC, true, "rolebindings", "rolebinding", "RoleBinding", withPathSegmentNames),
		generic(groupRBAC, true, "roles", "role", "Role", withPathSegmentNames),
		generic(groupDRA, false, "deviceclasses", "deviceclass", "DeviceClass", withGeneration),
		generic(groupDRA, false, "devicetaintrules", "devicetaintrule", "DeviceTaintRule", withGeneration,
			withStatus(emptyStatus)),
		generic(groupDRA, true, "resourceclaims", "resourceclaim", "ResourceClaim", withStatus(emptyStatus)),
		generic(groupDRA, true, "resourceclaimtemplates", "resourceclaimtemplate", "ResourceClaimTemplate"),
		generic(groupDRA, false, "resourceslices", "resourceslice", "ResourceSlice", withGeneration),
		generic("scheduling.k8s.io", false, "priorityclasses", "priorityclass", "PriorityClass", withShort("pc"), withGeneration),
		generic(groupStorage, false, "csidrivers", "csidriver", "CSIDriver"),
		generic(groupStorage, false, "csinodes", "csinode", "CSINode", withStatus(emptyStatus)), // status since 1.37
		generic(groupStorage, true, "csistoragecapacities", "csistoragecapacity", "CSIStorageCapacity"),
		generic(groupStorage, false, "storageclasses", "storageclass", "StorageClass", withShort("sc")),
		generic(groupStorage, false, "volumeattachments", "volumeattachment", "VolumeAttachment",
			withStatus(func() map[string]any { return map[string]any{"attached": false} })),
		generic(groupStorage, false, "volumeattributesclasses", "volumeattributesclass", "VolumeAttributesClass", withShort("vac")),
		generic("storagemigration.k8s.io", false, "storageversionmigrations", "storageversionmigration",
			"StorageVersionMigration", withStatus(emptyStatus)),
	}
}

// generic is a kind of group at v1 (storage version v1), with opts.
func generic(group string, namespaced bool, plural, singular, kind string, opts ...func(*Resource)) *Resource {
	res := &Resource{Group: group, Version: "v1", StorageVersion: "v1", Plural: plural, Singular: singular,
		Kind: kind, Namespaced: namespaced}
	for _, o := range opts {
		o(res)
	}
	return res
}

func withShort(s ...string) func(*Resource) { return func(r *Resource) { r.ShortNames = s } }

func withCategory(c string) func(*Resource) { return func(r *Resource) { r.Categories = []string{c} } }

// withGeneration: the real strategy sets metadata.generation to 1 on
// create and increments it when the spec changes.
func withGeneration(r *Resource) { r.Generation = true }

func withStatus(init func() map[string]any) func(*Resource) {
	return func(r *Resource) { r.Status, r.InitStatus = true, init }
}

// withPathSegmentNames: names are validated as path segments (RBAC's
// ValidateRBACName), not as DNS subdomains.
func withPathSegmentNames(r *Resource) { r.Names = validation.NamePathSegment }

func withKeepStatus(r *Resource) { r.KeepStatus = true }

// atV2 serves and stores the kind at v2.
func atV2(r *Resource) { r.Version, r.StorageVersion = "v2", "v2" }

// nodeStatus is the status a Node is created with when it carries none:
// the fields of NodeStatus the real server always encodes.
func nodeStatus() map[string]any {
	info := map[string]any{}
	for _, f := range []string{"machineID", "systemUUID", "bootID", "kernelVersion", "osImage",
		"containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"} {
		info[f] = ""
	}
	return map[string]any{"daemonEndpoints": map[string]any{"kubeletEndpoint": map[string]any{"Port": int64(0)}},
		"nodeInfo": info}
}
