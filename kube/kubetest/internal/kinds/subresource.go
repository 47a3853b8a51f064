// SPDX-License-Identifier: Apache-2.0

package kinds

import (
	"slices"
	"strings"
)

// Subresource is a subresource as discovery lists it: its name, the kind
// its requests and answers carry (Group and Version empty for the
// resource's own), and its verbs in the real server's order.
type Subresource struct {
	Name                 string
	Group, Version, Kind string
	Verbs                []string
}

// Proxy reports whether the subresource takes a path after its name
// (pods/NAME/proxy/PATH), as the real server's proxy routes do.
func (s Subresource) Proxy() bool { return s.Name == "proxy" }

// Verbs of the subresources.
var (
	verbsGetUpdate = []string{"get", "patch", "update"}
	verbsConnect   = []string{"create", "get"}
	verbsProxy     = []string{"create", "delete", "get", "patch", "update"}
	verbsCreate    = []string{"create"}
)

// builtinSubresources are the subresources of a built-in resource other
// than status and scale (the Resource's Status and Scale), as
// kube-apiserver 1.37.2 lists them (testdata/discovery.json; 1.33's are
// the same). Those kubetest cannot carry out (exec, attach, portforward,
// proxy: streams to a kubelet or a pod) are listed too, since tools read
// discovery to know a subresource exists; their requests answer what the
// real server answers without a node.
func builtinSubresources(group, plural string) []Subresource {
	switch group + "/" + plural {
	case "/namespaces":
		return []Subresource{{Name: "finalize", Kind: "Namespace", Verbs: []string{"update"}}}
	case "/nodes":
		return []Subresource{{Name: "proxy", Kind: "NodeProxyOptions", Verbs: verbsProxy}}
	case "/pods":
		return []Subresource{
			{Name: "attach", Kind: "PodAttachOptions", Verbs: verbsConnect},
			{Name: "binding", Kind: "Binding", Verbs: verbsCreate},
			{Name: "ephemeralcontainers", Kind: "Pod", Verbs: verbsGetUpdate},
			{Name: "eviction", Group: "policy", Version: "v1", Kind: "Eviction", Verbs: verbsCreate},
			{Name: "exec", Kind: "PodExecOptions", Verbs: verbsConnect},
			{Name: "log", Kind: "Pod", Verbs: []string{"get"}},
			{Name: "portforward", Kind: "PodPortForwardOptions", Verbs: verbsConnect},
			{Name: "proxy", Kind: "PodProxyOptions", Verbs: verbsProxy},
			{Name: "resize", Kind: "Pod", Verbs: verbsGetUpdate},
		}
	case "/serviceaccounts":
		return []Subresource{{Name: "token", Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest",
			Verbs: verbsCreate}}
	case "/services":
		return []Subresource{{Name: "proxy", Kind: "ServiceProxyOptions", Verbs: verbsProxy}}
	case "certificates.k8s.io/certificatesigningrequests":
		return []Subresource{{Name: "approval", Kind: "CertificateSigningRequest", Verbs: verbsGetUpdate}}
	}
	return nil
}

// Subresources are r's subresources in discovery order: a built-in's
// sorted by name, as the real server lists them; a custom resource's
// status before its scale.
func (r *Resource) Subresources() []Subresource {
	var out []Subresource
	if r.Status {
		out = append(out, Subresource{Name: "status", Kind: r.Kind, Verbs: verbsGetUpdate})
	}
	if r.Scale != nil {
		out = append(out, Subresource{Name: "scale", Group: "autoscaling", Version: "v1", Kind: "Scale",
			Verbs: verbsGetUpdate})
	}
	if r.CRD != "" {
		return out
	}
	out = append(out, builtinSubresources(r.Group, r.Plural)...)
	slices.SortFunc(out, func(a, b Subresource) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Subresource finds r's subresource of a request path's subresource
// part ("status", "proxy/PATH"); ok is false when r has none there.
func (r *Resource) Subresource(path string) (sub Subresource, ok bool) {
	name, _, hasRest := strings.Cut(path, "/")
	for _, s := range r.Subresources() {
		if s.Name == name && (!hasRest || s.Proxy()) {
			return s, true
		}
	}
	return Subresource{}, false
}
