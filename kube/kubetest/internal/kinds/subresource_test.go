// SPDX-License-Identifier: Apache-2.0

package kinds

import (
	"strings"
	"testing"
)

// TestStorageVersionHash checks the hashes /api/v1 and /apis/GROUP/VERSION
// list against kube-apiserver 1.37.2's (kubectl get --raw), for kinds
// stored as served and for those the real server stores otherwise.
func TestStorageVersionHash(t *testing.T) {
	want := map[string]string{
		"/configmaps":          "qFsyl6wFWjQ=",
		"events.k8s.io/events": "r2yiGXH7wu8=",
		"apiextensions.k8s.io/customresourcedefinitions":   "jfWCUB31mvA=",
		"certificates.k8s.io/clustertrustbundles":          "v5yhuVertL4=",
		"certificates.k8s.io/podcertificaterequests":       "wYA9yXQH8fg=",
		"resource.k8s.io/devicetaintrules":                 "i+85+TcIKpA=",
		"storagemigration.k8s.io/storageversionmigrations": "pCjmmKOkLy4=",
	}
	for _, r := range Builtins() {
		if w, ok := want[r.Group+"/"+r.Plural]; ok {
			if got := r.StorageVersionHash(); got != w {
				t.Errorf("%s/%s storageVersionHash = %s, want %s", r.Group, r.Plural, got, w)
			}
			delete(want, r.Group+"/"+r.Plural)
		}
	}
	if len(want) > 0 {
		t.Errorf("not among the built-ins: %v", want)
	}
}

// TestSubresourceRoutes checks what a request's subresource path finds:
// a proxy takes a path after its name, other subresources do not.
func TestSubresourceRoutes(t *testing.T) {
	var pods *Resource
	for _, r := range Builtins() {
		if r.Group == "" && r.Plural == "pods" {
			pods = r
		}
	}
	for path, want := range map[string]string{
		"exec": "exec create,get", "proxy": "proxy create,delete,get,patch,update",
		"proxy/a/b": "proxy create,delete,get,patch,update", "status": "status get,patch,update",
		"status/x": "", "scale": "", "exec/x": "",
	} {
		sub, ok := pods.Subresource(path)
		got := ""
		if ok {
			got = sub.Name + " " + strings.Join(sub.Verbs, ",")
		}
		if got != want {
			t.Errorf("pods' subresource %q = %q, want %q", path, got, want)
		}
	}
}
