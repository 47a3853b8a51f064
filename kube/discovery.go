// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Mapping is where the objects of a kind live: the resource's plural name
// and whether it is namespaced.
type Mapping struct {
	GVK        GroupVersionKind
	Resource   string
	Namespaced bool
}

// NoKindMatchError says discovery does not know a kind.
type NoKindMatchError struct{ GVK GroupVersionKind }

func (e *NoKindMatchError) Error() string {
	if e == nil {
		return "<nil *kube.NoKindMatchError>"
	}
	return fmt.Sprintf("no matches for kind %q in version %q", e.GVK.Kind, e.GVK.APIVersion())
}

// mapper caches discovery. The first lookup reads the whole API surface
// through aggregated discovery (two requests: /api and /apis) when the
// server offers it; a server without it is asked per group and version
// (/api/v1, /apis/GROUP/VERSION) as kinds are needed. A miss refreshes once,
// so a kind from a CRD installed after start becomes usable; a kind still
// missing after the refresh is a [*NoKindMatchError].
//
// A lookup of a known kind takes a lock held only to read a map: it never
// waits for a refresh. A refresh runs as a [flightGroup] call keyed by what
// it reads (everything, or one group version), shared by every lookup that
// misses on the same thing while it runs, bounded by discoveryTimeout; each
// of those lookups waits no longer than its own context allows.
type mapper struct {
	c       *Client
	refresh flightGroup[struct{}]

	mu         sync.Mutex // guards the fields below; never held across a request
	kinds      map[GroupVersionKind]Mapping
	aggregated bool // the server answered aggregated discovery
	loaded     bool // the first full load was tried
}

// discoveryTimeout bounds one refresh. client-go gives each discovery
// request 32 s when the configuration sets no timeout; a refresh is at
// most two requests.
const discoveryTimeout = time.Minute

func newMapper(c *Client) *mapper { return &mapper{c: c, kinds: map[GroupVersionKind]Mapping{}} }

// Mapping returns where objects of kind gvk live, from discovery.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (c *Client) Mapping(ctx context.Context, gvk GroupVersionKind) (Mapping, error) {
	if !c.made() {
		return Mapping{}, errNoClient
	}
	return c.mapper.mapping(ctx, gvk)
}

func (m *mapper) mapping(ctx context.Context, gvk GroupVersionKind) (Mapping, error) {
	var done []string // the refreshes this lookup waited for
	for {
		m.mu.Lock()
		mp, ok := m.kinds[gvk]
		all := !m.loaded || m.aggregated
		m.mu.Unlock()
		if ok {
			return mp, nil
		}
		key := gvk.Group + "/" + gvk.Version
		if all {
			key = ""
		}
		if slices.Contains(done, key) {
			return Mapping{}, &NoKindMatchError{GVK: gvk}
		}
		_, err := m.refresh.do(ctx, key, discoveryTimeout, func(ctx context.Context) (struct{}, error) {
			if all {
				return struct{}{}, m.loadAll(ctx)
			}
			return struct{}{}, m.loadGroupVersion(ctx, gvk.Group, gvk.Version)
		})
		if err != nil {
			return Mapping{}, fmt.Errorf("discover %s: %w", gvk.APIVersion(), err)
		}
		done = append(done, key)
	}
}

// loadAll reads aggregated discovery. On a server without it, it notes
// that discovery goes group version by group version from now on.
func (m *mapper) loadAll(ctx context.Context) error {
	ok, err := m.loadAggregated(ctx)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.loaded, m.aggregated = true, ok
	m.mu.Unlock()
	return nil
}

// aggregatedAccept asks for aggregated discovery, falling back to the
// legacy documents on servers that lack it.
const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

type aggregatedList struct {
	Kind  string `json:"kind"`
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Versions []struct {
			Version   string `json:"version"`
			Resources []struct {
				Resource     string `json:"resource"`
				Scope        string `json:"scope"`
				ResponseKind struct {
					Kind string `json:"kind"`
				} `json:"responseKind"`
			} `json:"resources"`
		} `json:"versions"`
	} `json:"items"`
}

// loadAggregated reads /api and /apis as APIGroupDiscoveryLists. It
// reports false when the server answered with the legacy documents.
func (m *mapper) loadAggregated(ctx context.Context) (bool, error) {
	kinds := map[GroupVersionKind]Mapping{}
	for _, path := range []string{"/api", "/apis"} {
		var list aggregatedList
		r := &request{method: http.MethodGet, path: path, accept: aggregatedAccept, safe: true, maxBody: maxDiscoveryBody, discoveryRoot: true}
		if err := m.c.call(ctx, r, &list); err != nil {
			return false, err
		}
		if list.Kind != "APIGroupDiscoveryList" {
			return false, nil
		}
		for _, g := range list.Items {
			for _, v := range g.Versions {
				for _, res := range v.Resources {
					gvk := GroupVersionKind{Group: g.Metadata.Name, Version: v.Version, Kind: res.ResponseKind.Kind}
					if gvk.Kind == "" || strings.Contains(res.Resource, "/") {
						continue
					}
					kinds[gvk] = Mapping{GVK: gvk, Resource: res.Resource, Namespaced: res.Scope == "Namespaced"}
				}
			}
		}
	}
	m.mu.Lock()
	m.kinds = kinds
	m.mu.Unlock()
	m.c.log.Debug("loaded aggregated discovery", "kinds", len(kinds))
	return true, nil
}

// loadGroupVersion reads the legacy APIResourceList of one group version.
// A group version the server does not serve leaves the cache as it was.
func (m *mapper) loadGroupVersion(ctx context.Context, group, version string) error {
	path := "/apis/" + group + "/" + version
	if group == "" {
		path = "/api/" + version
	}
	var list struct {
		Resources []struct {
			Name       string `json:"name"`
			Namespaced bool   `json:"namespaced"`
			Kind       string `json:"kind"`
		} `json:"resources"`
	}
	r := &request{method: http.MethodGet, path: path, safe: true, maxBody: maxDiscoveryBody}
	if err := m.c.call(ctx, r, &list); err != nil {
		if IsNotFound(err) {
			return nil
		}
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for gvk := range m.kinds {
		if gvk.Group == group && gvk.Version == version {
			delete(m.kinds, gvk)
		}
	}
	for _, res := range list.Resources {
		if strings.Contains(res.Name, "/") {
			continue // a subresource
		}
		gvk := GroupVersionKind{Group: group, Version: version, Kind: res.Kind}
		m.kinds[gvk] = Mapping{GVK: gvk, Resource: res.Name, Namespaced: res.Namespaced}
	}
	return nil
}
