// SPDX-License-Identifier: Apache-2.0

// Package rbac records what each user asked of kubetest and writes the
// smallest RBAC roles that allow it: a ClusterRole for what was asked
// outside any namespace (cluster-scoped kinds, lists and watches across
// namespaces, non-resource URLs), and a Role in each namespace for what
// was asked there and the ClusterRole does not already allow.
package rbac

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// MaxPerUser bounds the distinct requests kept per user; those beyond it
// are counted, not kept, and the roles say so.
const MaxPerUser = 10000

// Request is what a request asks, as RBAC sees it.
type Request struct {
	Verb, Group, Resource string // Resource is "deployments" or "deployments/scale"
	Namespace             string // "" for cluster scope, or across namespaces
	Path                  string // a non-resource URL; the other fields empty but Verb
}

// Of returns the Request of a request's attributes (those of
// kubetest.RequestInfo): a request about a namespace object is one of the
// cluster scope, as RBAC sees it.
func Of(verb, group, resource, subresource, namespace, path string, isResource bool) Request {
	if !isResource {
		return Request{Verb: verb, Path: path}
	}
	r := Request{Verb: verb, Group: group, Resource: resource, Namespace: namespace}
	if subresource != "" {
		r.Resource += "/" + subresource
	} else if resource == "namespaces" {
		r.Namespace = ""
	}
	return r
}

// allowedToAll says whether RBAC's default roles let every authenticated
// user make r (system:basic-user, system:discovery, system:public-info-viewer).
func allowedToAll(r Request) bool {
	if r.Path != "" {
		for _, p := range []string{"/api", "/apis", "/openapi", "/healthz", "/livez", "/readyz", "/version"} {
			if r.Path == p || strings.HasPrefix(r.Path, p+"/") {
				return true
			}
		}
		return false
	}
	return r.Group == "authorization.k8s.io" && r.Verb == "create" &&
		(r.Resource == "selfsubjectaccessreviews" || r.Resource == "selfsubjectrulesreviews") ||
		r.Group == "authentication.k8s.io" && r.Verb == "create" && r.Resource == "selfsubjectreviews"
}

// Recorder keeps the distinct requests of each user. The zero value is
// ready; it is safe for concurrent use, each call holding its mutex for a
// map look-up.
type Recorder struct {
	mu      sync.Mutex
	byUser  map[string]map[Request]bool
	dropped map[string]int
}

// Record adds r, made by user.
func (rec *Recorder) Record(user string, r Request) {
	if user == "" || allowedToAll(r) {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.byUser == nil {
		rec.byUser, rec.dropped = map[string]map[Request]bool{}, map[string]int{}
	}
	set := rec.byUser[user]
	if set == nil {
		set = map[Request]bool{}
		rec.byUser[user] = set
	}
	if !set[r] && len(set) >= MaxPerUser {
		rec.dropped[user]++
		return
	}
	set[r] = true
}

// Reset forgets every request.
func (rec *Recorder) Reset() {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.byUser, rec.dropped = nil, nil
}

// Roles returns the roles, as YAML documents, that allow every request
// user made, each named name: a ClusterRole for the cluster scope and a
// Role per namespace, or with clusterWide one ClusterRole for them all.
// "" when the user made no request that needs a role.
func (rec *Recorder) Roles(user, name string, clusterWide bool) string {
	rec.mu.Lock()
	reqs := slices.Collect(maps.Keys(rec.byUser[user]))
	dropped := rec.dropped[user]
	rec.mu.Unlock()
	if clusterWide {
		for i := range reqs {
			reqs[i].Namespace = ""
		}
	}
	cluster, namespaced := split(reqs)
	var docs []string
	if len(cluster) > 0 {
		docs = append(docs, role("ClusterRole", name, "", cluster))
	}
	for _, ns := range slices.Sorted(maps.Keys(namespaced)) {
		docs = append(docs, role("Role", name, ns, namespaced[ns]))
	}
	out := strings.Join(docs, "---\n")
	if dropped > 0 {
		out = fmt.Sprintf("# kubetest kept %d distinct requests of %s and left %d out: these roles may not allow them all\n", MaxPerUser, user, dropped) + out
	}
	return out
}

// split sorts requests into those of the cluster scope and those of each
// namespace that the cluster scope's do not allow.
func split(reqs []Request) ([]Request, map[string][]Request) {
	type grant struct{ verb, group, resource string }
	clusterWide := map[grant]bool{}
	var cluster []Request
	for _, r := range reqs {
		if r.Namespace == "" {
			cluster = append(cluster, r)
			clusterWide[grant{r.Verb, r.Group, r.Resource}] = true
		}
	}
	namespaced := map[string][]Request{}
	for _, r := range reqs {
		if r.Namespace != "" && !clusterWide[grant{r.Verb, r.Group, r.Resource}] {
			namespaced[r.Namespace] = append(namespaced[r.Namespace], r)
		}
	}
	return cluster, namespaced
}

// rule is one PolicyRule: verbs on resources of one group, or on
// non-resource URLs.
type rule struct {
	group     string
	resources []string
	urls      []string
	verbs     []string
}

// rules folds requests into rules: one per group and set of verbs, with
// every resource of the group asked exactly those verbs.
func rules(reqs []Request) []*rule {
	verbs := map[[2]string]map[string]bool{} // {group, resource} or {"", path} → verbs
	for _, r := range reqs {
		k := [2]string{r.Group, r.Resource}
		if r.Path != "" {
			k = [2]string{"\x00", r.Path}
		}
		if verbs[k] == nil {
			verbs[k] = map[string]bool{}
		}
		verbs[k][r.Verb] = true
	}
	byRule := map[string]*rule{}
	for _, k := range slices.SortedFunc(maps.Keys(verbs), func(a, b [2]string) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	}) {
		vs := slices.Sorted(maps.Keys(verbs[k]))
		id := k[0] + "|" + strings.Join(vs, ",")
		r := byRule[id]
		if r == nil {
			r = &rule{group: k[0], verbs: vs}
			byRule[id] = r
		}
		if k[0] == "\x00" {
			r.urls = append(r.urls, k[1])
		} else {
			r.resources = append(r.resources, k[1])
		}
	}
	out := slices.Collect(maps.Values(byRule))
	slices.SortFunc(out, func(a, b *rule) int {
		return cmp.Or(cmp.Compare(a.group, b.group), slices.Compare(a.resources, b.resources), slices.Compare(a.urls, b.urls))
	})
	return out
}

// role writes one Role or ClusterRole as a YAML document.
func role(kind, name, ns string, reqs []Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: rbac.authorization.k8s.io/v1\nkind: %s\nmetadata:\n  name: %s\n", kind, quote(name))
	if ns != "" {
		fmt.Fprintf(&b, "  namespace: %s\n", quote(ns))
	}
	b.WriteString("rules:\n")
	for _, r := range rules(reqs) {
		if r.urls != nil {
			fmt.Fprintf(&b, "- nonResourceURLs: %s\n", flow(r.urls))
		} else {
			fmt.Fprintf(&b, "- apiGroups: %s\n  resources: %s\n", flow([]string{r.group}), flow(r.resources))
		}
		fmt.Fprintf(&b, "  verbs: %s\n", flow(r.verbs))
	}
	return b.String()
}

// flow writes a YAML flow sequence of strings, each quoted where YAML
// would read it otherwise.
func flow(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// quote returns s plain when YAML reads it back as the same string, else
// double-quoted.
func quote(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-./_", r))
	}) < 0 && !slices.Contains([]string{"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"}, strings.ToLower(s))
	if plain && (s[0] < '0' || s[0] > '9') {
		return s
	}
	return fmt.Sprintf("%q", s)
}
