// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"
	"net/netip"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file gives Services what kube-apiserver gives them: the defaults of
// the kind's decoding (type, session affinity, port protocols and target
// ports, traffic policies), which the writer's managedFields own, and on
// create a cluster IP from the harness's range 10.0.0.0/24 with the IP
// family fields, which nobody owns. Node ports are not allocated.

// serviceCIDR is the service range of kube-apiserver's default
// configuration and of testdata/kube-apiserver; service/kubernetes holds
// its first address.
var serviceCIDR = netip.MustParsePrefix("10.0.0.0/24")

func isServices(res *resource) bool { return res.Group == "" && res.Plural == "services" }

// allocateServiceLocked gives a Service that is not an ExternalName one a
// cluster IP when it has none (the lowest free address of serviceCIDR; the
// real allocator picks at random), clusterIPs, and its IP families: a
// headless Service without a selector asks for both families, as the
// real server's single-stack default makes it. The caller holds s.mu.
func (s *Server) allocateServiceLocked(res *resource, o obj) *kube.StatusError {
	spec, _ := o["spec"].(obj)
	if spec == nil || spec["type"] == "ExternalName" {
		return nil
	}
	ip := unstructured.String(spec, "clusterIP")
	if ip == "" {
		if ip = s.freeClusterIPLocked(res); ip == "" {
			return statusError(http.StatusInternalServerError, kube.ReasonInternalError,
				"Internal error occurred: failed to allocate a serviceIP: range is full", nil)
		}
		spec["clusterIP"] = ip
	}
	if _, ok := spec["clusterIPs"]; !ok {
		spec["clusterIPs"] = []any{ip}
	}
	if _, ok := spec["ipFamilyPolicy"]; !ok {
		spec["ipFamilyPolicy"] = "SingleStack"
		if _, selects := spec["selector"].(obj); ip == "None" && !selects {
			spec["ipFamilyPolicy"] = "RequireDualStack"
		}
	}
	if _, ok := spec["ipFamilies"]; !ok {
		spec["ipFamilies"] = []any{"IPv4"}
		if spec["ipFamilyPolicy"] == "RequireDualStack" {
			spec["ipFamilies"] = []any{"IPv4", "IPv6"}
		}
	}
	return nil
}

// freeClusterIPLocked returns the lowest address of serviceCIDR, past the
// network address, that no Service holds, or "" when none is left.
func (s *Server) freeClusterIPLocked(res *resource) string {
	used := map[string]bool{}
	if col := s.cols[res.colKey()]; col != nil {
		for _, rec := range col.objects {
			spec, _ := mustDecode(rec.raw)["spec"].(obj)
			for _, ip := range stringList(spec, "clusterIPs") {
				used[ip] = true
			}
			used[unstructured.String(spec, "clusterIP")] = true
		}
	}
	last := netip.AddrFrom4([4]byte{10, 0, 0, 255}) // the broadcast address is never handed out
	for ip := serviceCIDR.Addr().Next(); ip.Less(last); ip = ip.Next() {
		if !used[ip.String()] {
			return ip.String()
		}
	}
	return ""
}

// keepServiceAllocation carries the allocated fields of old over to an
// update that leaves them out, as the real server does, unless the update
// makes the Service an ExternalName one.
func keepServiceAllocation(next, old obj) {
	spec, _ := next["spec"].(obj)
	oldSpec, _ := old["spec"].(obj)
	if spec == nil || oldSpec == nil || spec["type"] == "ExternalName" {
		return
	}
	for _, k := range []string{"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"} {
		if _, ok := spec[k]; !ok {
			if v, had := oldSpec[k]; had {
				spec[k] = unstructured.DeepCopy(v)
			}
		}
	}
}
