// SPDX-License-Identifier: Apache-2.0

package clusterip

import (
	"iter"
	"net/netip"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// obj is a decoded JSON object.
type obj = map[string]any

// serviceCIDR is the service range of kube-apiserver's default
// configuration and of testdata/kube-apiserver; service/kubernetes holds
// its first address.
var serviceCIDR = netip.MustParsePrefix("10.0.0.0/24")

// Store is the stored Services as the allocator sees them.
type Store interface {
	// Specs yields the spec of every stored Service (nil for one without).
	Specs() iter.Seq[map[string]any]
}

// Allocate gives the Service o about to be created, if it is not an
// ExternalName one, a cluster IP when it has none (the lowest address no
// Service in st holds), clusterIPs, and its IP families: a headless
// Service without a selector asks for both families, as the real
// server's single-stack default makes it. ok is false, and o unchanged,
// when the range is full.
func Allocate(o map[string]any, st Store) (ok bool) {
	spec, _ := o["spec"].(obj)
	if spec == nil || spec["type"] == "ExternalName" {
		return true
	}
	ip := unstructured.String(spec, "clusterIP")
	if ip == "" {
		if ip = free(st); ip == "" {
			return false
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
	return true
}

// free returns the lowest address of serviceCIDR, past the network
// address, that no Service holds, or "" when none is left. Cost:
// O(Services).
func free(st Store) string {
	used := map[string]bool{}
	for spec := range st.Specs() {
		if l, ok := spec["clusterIPs"].([]any); ok {
			for _, v := range l {
				if ip, ok := v.(string); ok {
					used[ip] = true
				}
			}
		}
		used[unstructured.String(spec, "clusterIP")] = true
	}
	last := netip.AddrFrom4([4]byte{10, 0, 0, 255}) // the broadcast address is never handed out
	for ip := serviceCIDR.Addr().Next(); ip.Less(last); ip = ip.Next() {
		if !used[ip.String()] {
			return ip.String()
		}
	}
	return ""
}

// KeepOnUpdate carries the allocated fields of old over to an update next
// that leaves them out, as the real server does, unless the update makes
// the Service an ExternalName one.
func KeepOnUpdate(next, old map[string]any) {
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
