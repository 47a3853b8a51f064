// SPDX-License-Identifier: Apache-2.0

package defaulting

import "github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"

// defaultService applies the defaults the real server's decoding applies
// to a Service's spec.
func defaultService(o obj) {
	spec, _ := o["spec"].(obj)
	if spec == nil {
		spec = obj{}
		o["spec"] = spec
	}
	setDefault := func(k string, v any) {
		if _, ok := spec[k]; !ok {
			spec[k] = v
		}
	}
	if unstructured.String(spec, "sessionAffinity") == "" {
		spec["sessionAffinity"] = "None"
	}
	if spec["sessionAffinity"] == "None" {
		delete(spec, "sessionAffinityConfig")
	}
	if unstructured.String(spec, "type") == "" {
		spec["type"] = "ClusterIP"
	}
	ports, _ := spec["ports"].([]any)
	for _, p := range ports {
		port, ok := p.(obj)
		if !ok {
			continue
		}
		if unstructured.String(port, "protocol") == "" {
			port["protocol"] = "TCP"
		}
		if tp := port["targetPort"]; tp == nil || tp == "" || tp == float64(0) || tp == int64(0) {
			port["targetPort"] = port["port"]
		}
	}
	typ := spec["type"]
	_, externalIPs := spec["externalIPs"].([]any)
	if (typ == "NodePort" || typ == "LoadBalancer" || (typ == "ClusterIP" && externalIPs)) && unstructured.String(spec, "externalTrafficPolicy") == "" {
		spec["externalTrafficPolicy"] = "Cluster"
	}
	if typ == "NodePort" || typ == "LoadBalancer" || typ == "ClusterIP" {
		setDefault("internalTrafficPolicy", "Cluster")
	}
	if typ == "LoadBalancer" {
		setDefault("allocateLoadBalancerNodePorts", true)
	}
}
