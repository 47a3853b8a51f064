// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/discovery"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/requestinfo"
)

// This file serves discovery (/api, /api/v1, /apis, /apis/GROUP,
// /apis/GROUP/VERSION, and aggregated discovery on /api and /apis), the
// version, and the health endpoints. Discovery lists exactly what the
// server serves, CRDs included as they come and go; internal/discovery
// writes the documents.

// Version is the gitVersion /version reports by default: the
// kube-apiserver release kubetest's captures come from (NewestMinor's).
// A server acting as an older minor (Options.Minor) reports that
// minor's release.
const Version = "v1.37.2"

// serveNonResource serves GET and HEAD of the paths that are not a
// resource's: health, version, OpenAPI, and discovery (serveDiscovery).
func (s *Server) serveNonResource(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimSuffix(r.URL.Path, "/")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		apierr.Write(w, apierr.MethodNotAllowed())
		return
	}
	switch {
	case p == "/healthz" || p == "/livez" || p == "/readyz" || strings.HasPrefix(p, "/healthz/") ||
		strings.HasPrefix(p, "/livez/") || strings.HasPrefix(p, "/readyz/"):
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write([]byte("ok"))
	case p == "/version":
		apierr.WriteJSON(w, http.StatusOK, discovery.VersionInfo(s.facts.GitVersion))
	case p == "/openapi/v2" || p == "/openapi/v3" || strings.HasPrefix(p, "/openapi/v3/"):
		s.serveOpenAPI(w, r, p)
	default:
		s.serveDiscovery(w, r, p)
	}
}

// serveDiscovery serves the discovery documents at path p (/api, /apis,
// a group, a group version), aggregated when the request accepts it;
// other paths under /api and /apis are a 404 Status, the rest the mux's
// plain 404.
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request, p string) {
	parts := requestinfo.SplitPath(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	aggregated := discovery.WantsAggregated(r.Header.Get("Accept"))
	switch {
	case p == "/api" && aggregated:
		s.writeAggregated(w, r, p, func() []string { return []string{""} })
	case p == "/api":
		apierr.WriteJSON(w, http.StatusOK, discovery.APIVersions(r.Host))
	case p == "/api/v1":
		apierr.WriteJSON(w, http.StatusOK, discovery.ResourceList("", "v1", s.apiResourcesLocked("", "v1")))
	case p == "/apis" && aggregated:
		s.writeAggregated(w, r, p, s.reg.Groups)
	case p == "/apis":
		apierr.WriteJSON(w, http.StatusOK, s.groupListLocked())
	case len(parts) == 2 && parts[0] == "apis" && len(s.reg.Versions(parts[1])) > 0:
		g := s.apiGroupLocked(parts[1])
		g.Kind, g.APIVersion = "APIGroup", "v1"
		apierr.WriteJSON(w, http.StatusOK, discovery.Document(g))
	case len(parts) == 3 && parts[0] == "apis" && len(s.reg.Listed(parts[1], parts[2])) > 0:
		apierr.WriteJSON(w, http.StatusOK, discovery.ResourceList("v1", parts[1]+"/"+parts[2], s.apiResourcesLocked(parts[1], parts[2])))
	case len(parts) >= 2 && parts[0] == "apis" && (len(s.reg.Versions(parts[1])) == 0 || s.reg.CRDOnly(parts[1])):
		http.NotFound(w, r) // no handler at all for the group, or its CRDs' passed it on
	case len(parts) > 0 && (parts[0] == "api" || parts[0] == "apis"):
		apierr.Write(w, apierr.ResourceNotFound())
	default:
		http.NotFound(w, r)
	}
}

// groupListLocked is the body of /apis, unaggregated. The caller holds
// s.mu.
func (s *Server) groupListLocked() []byte {
	groups := []discovery.APIGroup{}
	for _, g := range s.reg.Groups() {
		groups = append(groups, s.apiGroupLocked(g))
	}
	return discovery.GroupList(groups)
}

// apiGroupLocked is the APIGroup of a served group. The caller holds
// s.mu.
func (s *Server) apiGroupLocked(group string) discovery.APIGroup {
	return discovery.NewGroup(group, s.reg.Versions(group))
}

// apiResourcesLocked lists a group version's resources and their
// subresources. The caller holds s.mu.
func (s *Server) apiResourcesLocked(group, version string) []discovery.APIResource {
	return discovery.Resources(descriptions(s.reg.Listed(group, version)))
}

// writeAggregated writes the APIGroupDiscoveryList of groups, kept for
// the registry's generation under key ("/api" or "/apis"): clients ask
// it at every start, the registry changes when a CRD does. The caller
// holds s.mu.
func (s *Server) writeAggregated(w http.ResponseWriter, r *http.Request, key string, groups func() []string) {
	gen := s.reg.Generation()
	if s.aggregated == nil || s.aggregatedGen != gen {
		s.aggregated, s.aggregatedGen = map[string]discovery.AggregatedDoc{}, gen
	}
	doc, ok := s.aggregated[key]
	if !ok {
		var list []discovery.Group
		for _, g := range groups() {
			dg := discovery.Group{Name: g}
			for _, v := range s.reg.Versions(g) {
				dg.Versions = append(dg.Versions, discovery.Version{Name: v, Resources: descriptions(s.reg.Listed(g, v))})
			}
			list = append(list, dg)
		}
		doc = discovery.NewAggregatedDoc(discovery.Aggregated(list))
		s.aggregated[key] = doc
	}
	discovery.ServeAggregated(w, r, doc)
}

// descriptions are the descriptions of rs.
func descriptions(rs []*resource) []*kinds.Resource {
	out := make([]*kinds.Resource, len(rs))
	for i, r := range rs {
		out[i] = &r.Resource
	}
	return out
}
