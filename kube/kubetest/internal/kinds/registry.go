// SPDX-License-Identifier: Apache-2.0

package kinds

import "slices"

// Described is what a Registry holds: a served resource, which
// describes itself.
type Described interface {
	comparable
	Desc() *Resource
}

// Desc is r itself: a server's resource that embeds a Resource is
// Described.
func (r *Resource) Desc() *Resource { return r }

// Registry holds the served resources of a server: the built-in ones and
// those CRDs add. It is not safe for concurrent use.
type Registry[R Described] struct {
	// ByGV maps "group/version" to its resources in discovery order.
	ByGV map[string][]R
	// crdGroups lists the groups served by CRDs alone, in order of name.
	crdGroups []string
	// answered maps "group/version" to the resources answered by a
	// handler of their own and never stored (the reviews): discovery
	// lists them with byGV's, nothing else sees them.
	answered map[string][]R
	// gen counts the changes (see Generation).
	gen uint64
}

// NewRegistry returns an empty registry.
func NewRegistry[R Described]() *Registry[R] {
	return &Registry[R]{ByGV: map[string][]R{}, answered: map[string][]R{}}
}

// AddAnswered registers r as answered by a handler of its own and never
// stored.
func (g *Registry[R]) AddAnswered(r R) {
	g.gen++
	k := gvKey(r.Desc().Group, r.Desc().Version)
	g.answered[k] = append(g.answered[k], r)
}

// gvKey is the key of ByGV.
func gvKey(group, version string) string { return group + "/" + version }

// Add registers r, replacing a resource of the same group, version and
// plural.
func (g *Registry[R]) Add(r R) {
	g.gen++
	d := r.Desc()
	k := gvKey(d.Group, d.Version)
	list := g.ByGV[k]
	for i, old := range list {
		if old.Desc().Plural == d.Plural {
			list[i] = r
			return
		}
	}
	g.ByGV[k] = append(list, r)
	if d.CRD != "" && !slices.Contains(g.crdGroups, d.Group) && !slices.Contains(Groups(), d.Group) {
		g.crdGroups = append(g.crdGroups, d.Group)
		slices.Sort(g.crdGroups)
	}
}

// RemoveCRD unregisters every resource served by the CRD named crd.
func (g *Registry[R]) RemoveCRD(crd string) {
	g.gen++
	for k, list := range g.ByGV {
		list = slices.DeleteFunc(list, func(r R) bool { return r.Desc().CRD == crd })
		if len(list) == 0 {
			delete(g.ByGV, k)
		} else {
			g.ByGV[k] = list
		}
	}
	g.crdGroups = slices.DeleteFunc(g.crdGroups, func(group string) bool { return len(g.Versions(group)) == 0 })
}

// Generation counts the registry's changes: each Add, AddAnswered and
// RemoveCRD adds one, so what is built from the registry at a generation
// (a discovery document) holds until it moves. A resource changed in
// place, not through Add, does not move it.
func (g *Registry[R]) Generation() uint64 { return g.gen }

// CRDOnly reports whether group is served by CRDs alone: kube-apiserver's
// apiextensions handler passes what they do not serve to the mux, which
// answers a plain 404, where a built-in group answers a NotFound Status.
func (g *Registry[R]) CRDOnly(group string) bool { return slices.Contains(g.crdGroups, group) }

// Lookup finds a served resource by group, version and plural; the zero
// R when there is none.
func (g *Registry[R]) Lookup(group, version, plural string) (none R) {
	for _, r := range g.ByGV[gvKey(group, version)] {
		if r.Desc().Plural == plural {
			return r
		}
	}
	return none
}

// ByKind finds a served resource by group, version and kind; the zero R
// when there is none.
func (g *Registry[R]) ByKind(group, version, kind string) (none R) {
	for _, r := range g.ByGV[gvKey(group, version)] {
		if r.Desc().Kind == kind {
			return r
		}
	}
	return none
}

// Groups returns the non-core groups in the order /apis lists them.
func (g *Registry[R]) Groups() []string {
	var out []string
	for _, grp := range Groups() {
		if len(g.Versions(grp)) > 0 {
			out = append(out, grp)
		}
	}
	return append(out, g.crdGroups...)
}

// Listed returns what discovery lists of a group version: the stored
// resources, then the answered ones.
func (g *Registry[R]) Listed(group, version string) []R {
	k := gvKey(group, version)
	return slices.Concat(g.ByGV[k], g.answered[k])
}

// Versions returns the served versions of group, preferred first: the
// Kubernetes version order (v2 before v1, v1 before v1beta1).
func (g *Registry[R]) Versions(group string) []string {
	var out []string
	for _, m := range []map[string][]R{g.ByGV, g.answered} {
		for k := range m {
			if grp, v := SplitGV(k); grp == group && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	slices.SortFunc(out, CompareVersions)
	return out
}

// SplitGV splits a key of ByGV into group and version.
func SplitGV(k string) (group, version string) {
	for i := len(k) - 1; i >= 0; i-- {
		if k[i] == '/' {
			return k[:i], k[i+1:]
		}
	}
	return "", k
}
