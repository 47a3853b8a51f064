// SPDX-License-Identifier: Apache-2.0

package authz

import (
	"slices"
	"strings"
	"sync"
)

// Denials is a set of denials; the zero value denies nothing. It is safe
// for concurrent use; each call holds its mutex for a few map look-ups
// (Rules and DeniedTo: a scan of the set).
type Denials struct {
	mu sync.Mutex
	// set holds the denials in force; nil until the first Deny.
	set map[denial]bool
}

// denial forbids a verb on a resource to a user; "*" matches anything.
type denial struct{ user, verb, resource string }

// Deny adds the denial of verb on resource to user.
func (d *Denials) Deny(user, verb, resource string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.set == nil {
		d.set = map[denial]bool{}
	}
	d.set[denial{user, verb, resource}] = true
}

// Allow removes the denial Deny added with the same arguments.
func (d *Denials) Allow(user, verb, resource string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.set, denial{user, verb, resource})
}

// Denies reports whether a denial matches user's verb on resource, each
// of them exactly or by "*".
func (d *Denials) Denies(user, verb, resource string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, u := range []string{user, "*"} {
		for _, v := range []string{verb, "*"} {
			for _, r := range []string{resource, "*"} {
				if d.set[denial{u, v, r}] {
					return true
				}
			}
		}
	}
	return false
}

// DeniesPath reports whether a denial matches user's verb on the
// non-resource URL path. The paths RBAC's default roles let every
// authenticated user get (system:public-info-viewer's and
// system:discovery's, bound to the group system:authenticated) are never
// denied to a member of that group.
func (d *Denials) DeniesPath(user string, groups []any, verb, path string) bool {
	if verb == "get" && (PublicPath(path) || DiscoveryPath(path)) && slices.Contains(groups, any("system:authenticated")) {
		return false
	}
	return d.Denies(user, verb, path)
}

// DeniedTo reports whether any denial names user (or every user), and
// whether one denies it every verb on every resource.
func (d *Denials) DeniedTo(user string) (some, all bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for x := range d.set {
		if x.user == user || x.user == "*" {
			some = true
			all = all || (x.verb == "*" && x.resource == "*")
		}
	}
	return some, all
}

// PublicPath reports whether p is a path anonymous requests may get by
// default: health and /version.
func PublicPath(p string) bool {
	for _, pub := range []string{"/healthz", "/livez", "/readyz", "/version"} {
		if p == pub || strings.HasPrefix(p, pub+"/") {
			return true
		}
	}
	return false
}

// DiscoveryPath reports whether p is one of the paths of discovery and
// OpenAPI, which RBAC's system:discovery role lets every user get.
func DiscoveryPath(p string) bool {
	for _, d := range []string{"/api", "/apis", "/openapi"} {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}
