// SPDX-License-Identifier: Apache-2.0

package kubetest

// This file lists the built-in kinds kubetest stores and validates only:
// no controller, admission or registry behaviour of their own beyond the
// real strategy's generation and the status a create stores. Their names,
// scope, short names and categories are those of kube-apiserver 1.36.3's
// discovery (testdata/discovery.json), their schemas those captured from
// it (internal/schema/openapi). PodDisruptionBudgets are also read and
// charged by pods/eviction (budget.go).

// emptyStatus is the status a create stores for kinds whose status has
// only optional fields: the real strategy resets it and it encodes as {}.
func emptyStatus() map[string]any { return map[string]any{} }

// genericBuiltins returns the stored-only built-in kinds, each at v1 of
// its group (autoscaling at v2 and v1, stored at v2: hpa.go). Each call
// returns fresh values.
func genericBuiltins() []*resource {
	r := func(group string, namespaced bool, plural, singular, kind string, opts ...func(*resource)) *resource {
		res := &resource{Group: group, Version: "v1", StorageVersion: "v1", Plural: plural, Singular: singular,
			Kind: kind, Namespaced: namespaced}
		for _, o := range opts {
			o(res)
		}
		return res
	}
	short := func(s ...string) func(*resource) { return func(r *resource) { r.ShortNames = s } }
	category := func(c string) func(*resource) { return func(r *resource) { r.Categories = []string{c} } }
	// generation: the real strategy sets metadata.generation to 1 on
	// create and increments it when the spec changes.
	generation := func(r *resource) { r.Generation = true }
	status := func(init func() map[string]any) func(*resource) {
		return func(r *resource) { r.Status, r.InitStatus = true, init }
	}
	v2 := func(r *resource) { r.Version, r.StorageVersion = "v2", "v2" }
	const (
		admission  = "admissionregistration.k8s.io"
		networking = "networking.k8s.io"
		flow       = "flowcontrol.apiserver.k8s.io"
		rbac       = "rbac.authorization.k8s.io"
		dra        = "resource.k8s.io"
		storage    = "storage.k8s.io"
	)
	all := []*resource{
		r("", false, "nodes", "node", "Node", short("no"), status(nodeStatus), func(r *resource) { r.KeepStatus = true }),
		r("", true, "podtemplates", "podtemplate", "PodTemplate", generation),
		r(admission, false, "mutatingadmissionpolicies", "mutatingadmissionpolicy", "MutatingAdmissionPolicy",
			category("api-extensions"), generation),
		r(admission, false, "mutatingadmissionpolicybindings", "mutatingadmissionpolicybinding",
			"MutatingAdmissionPolicyBinding", category("api-extensions"), generation),
		r(admission, false, "mutatingwebhookconfigurations", "mutatingwebhookconfiguration",
			"MutatingWebhookConfiguration", category("api-extensions"), generation),
		r(admission, false, "validatingadmissionpolicies", "validatingadmissionpolicy", "ValidatingAdmissionPolicy",
			category("api-extensions"), generation, status(emptyStatus)),
		r(admission, false, "validatingadmissionpolicybindings", "validatingadmissionpolicybinding",
			"ValidatingAdmissionPolicyBinding", category("api-extensions"), generation),
		r(admission, false, "validatingwebhookconfigurations", "validatingwebhookconfiguration",
			"ValidatingWebhookConfiguration", category("api-extensions"), generation),
		r("apiregistration.k8s.io", false, "apiservices", "apiservice", "APIService",
			category("api-extensions"), status(emptyStatus)),
		r("autoscaling", true, "horizontalpodautoscalers", "horizontalpodautoscaler", "HorizontalPodAutoscaler", v2,
			short("hpa"), category("all"), status(func() map[string]any {
				return map[string]any{"currentMetrics": nil, "desiredReplicas": int64(0)}
			})),
		r("autoscaling", true, "horizontalpodautoscalers", "horizontalpodautoscaler", "HorizontalPodAutoscaler",
			short("hpa"), category("all"), status(func() map[string]any {
				return map[string]any{"desiredReplicas": int64(0)}
			})),
		r("certificates.k8s.io", false, "certificatesigningrequests", "certificatesigningrequest",
			"CertificateSigningRequest", short("csr"), status(emptyStatus)),
		r("discovery.k8s.io", true, "endpointslices", "endpointslice", "EndpointSlice", generation),
		r(flow, false, "flowschemas", "flowschema", "FlowSchema", generation, status(emptyStatus)),
		r(flow, false, "prioritylevelconfigurations", "prioritylevelconfiguration", "PriorityLevelConfiguration",
			generation, status(emptyStatus)),
		r(networking, false, "ingressclasses", "ingressclass", "IngressClass", generation),
		r(networking, false, "ipaddresses", "ipaddress", "IPAddress", short("ip")),
		r(networking, true, "networkpolicies", "networkpolicy", "NetworkPolicy", short("netpol"), generation),
		r(networking, false, "servicecidrs", "servicecidr", "ServiceCIDR", status(emptyStatus)),
		r("node.k8s.io", false, "runtimeclasses", "runtimeclass", "RuntimeClass"),
		r("policy", true, "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", short("pdb"),
			generation, status(func() map[string]any {
				return map[string]any{"currentHealthy": int64(0), "desiredHealthy": int64(0),
					"disruptionsAllowed": int64(0), "expectedPods": int64(0)}
			})),
		r(rbac, false, "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding"),
		r(rbac, false, "clusterroles", "clusterrole", "ClusterRole"),
		r(rbac, true, "rolebindings", "rolebinding", "RoleBinding"),
		r(rbac, true, "roles", "role", "Role"),
		r(dra, false, "deviceclasses", "deviceclass", "DeviceClass", generation),
		r(dra, true, "resourceclaims", "resourceclaim", "ResourceClaim", status(emptyStatus)),
		r(dra, true, "resourceclaimtemplates", "resourceclaimtemplate", "ResourceClaimTemplate"),
		r(dra, false, "resourceslices", "resourceslice", "ResourceSlice", generation),
		r("scheduling.k8s.io", false, "priorityclasses", "priorityclass", "PriorityClass", short("pc"), generation),
		r(storage, false, "csidrivers", "csidriver", "CSIDriver"),
		r(storage, false, "csinodes", "csinode", "CSINode"),
		r(storage, true, "csistoragecapacities", "csistoragecapacity", "CSIStorageCapacity"),
		r(storage, false, "storageclasses", "storageclass", "StorageClass", short("sc")),
		r(storage, false, "volumeattachments", "volumeattachment", "VolumeAttachment",
			status(func() map[string]any { return map[string]any{"attached": false} })),
		r(storage, false, "volumeattributesclasses", "volumeattributesclass", "VolumeAttributesClass", short("vac")),
	}
	var hpaV2, hpaV1 *resource
	for _, r := range all {
		if r.Plural == "horizontalpodautoscalers" && r.Version == "v2" {
			hpaV2 = r
		} else if r.Plural == "horizontalpodautoscalers" {
			hpaV1 = r
		}
	}
	linkHPA(hpaV2, hpaV1)
	return all
}

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
