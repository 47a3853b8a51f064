// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"mime"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// This file serves discovery (/api, /api/v1, /apis, /apis/GROUP,
// /apis/GROUP/VERSION, and aggregated discovery on /api and /apis), the
// version, and the health endpoints. Discovery lists exactly what the
// server serves, CRDs included as they come and go.

// Version is the gitVersion /version reports by default: the
// kube-apiserver release kubetest's captures come from (NewestMinor's).
// A server acting as an older minor (Options.Minor) reports that
// minor's release.
const Version = "v1.37.2"

const aggregatedType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

type apiResource struct {
	Name               string   `json:"name"`
	SingularName       string   `json:"singularName"`
	Namespaced         bool     `json:"namespaced"`
	Group              string   `json:"group,omitempty"`
	Version            string   `json:"version,omitempty"`
	Kind               string   `json:"kind"`
	Verbs              []string `json:"verbs"`
	ShortNames         []string `json:"shortNames,omitempty"`
	Categories         []string `json:"categories,omitempty"`
	StorageVersionHash string   `json:"storageVersionHash,omitempty"`
}

type groupVersion struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

type apiGroup struct {
	Kind             string         `json:"kind,omitempty"`
	APIVersion       string         `json:"apiVersion,omitempty"`
	Name             string         `json:"name"`
	Versions         []groupVersion `json:"versions"`
	PreferredVersion groupVersion   `json:"preferredVersion"`
}

type kindRef struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type discoveryResource struct {
	Resource         string                 `json:"resource"`
	ResponseKind     kindRef                `json:"responseKind"`
	Scope            string                 `json:"scope"`
	SingularResource string                 `json:"singularResource"`
	Verbs            []string               `json:"verbs"`
	ShortNames       []string               `json:"shortNames,omitempty"`
	Categories       []string               `json:"categories,omitempty"`
	Subresources     []discoverySubresource `json:"subresources,omitempty"`
}

type discoverySubresource struct {
	Subresource  string   `json:"subresource"`
	ResponseKind kindRef  `json:"responseKind"`
	Verbs        []string `json:"verbs"`
}

type discoveryVersion struct {
	Version   string              `json:"version"`
	Resources []discoveryResource `json:"resources"`
	Freshness string              `json:"freshness"`
}

type discoveryGroup struct {
	Metadata struct {
		Name string `json:"name,omitempty"`
	} `json:"metadata"`
	Versions []discoveryVersion `json:"versions"`
}

// serveNonResource serves GET and HEAD of the paths that are not a
// resource's: health, version, OpenAPI, and discovery (serveDiscovery).
func (s *Server) serveNonResource(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimSuffix(r.URL.Path, "/")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, errMethodNotAllowed())
		return
	}
	switch {
	case p == "/healthz" || p == "/livez" || p == "/readyz" || strings.HasPrefix(p, "/healthz/") ||
		strings.HasPrefix(p, "/livez/") || strings.HasPrefix(p, "/readyz/"):
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write([]byte("ok"))
	case p == "/version":
		writeJSON(w, http.StatusOK, versionInfo(s.facts.gitVersion))
	case p == "/openapi/v2" || p == "/openapi/v3" || strings.HasPrefix(p, "/openapi/v3/"):
		s.serveOpenAPI(w, r, p)
	default:
		s.serveDiscovery(w, r, p)
	}
}

// versionInfo is the body of /version: gitVersion, with the build fields
// of a real server's.
func versionInfo(gitVersion string) []byte {
	major, minor, _ := strings.Cut(strings.TrimPrefix(gitVersion, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	n, _ := strconv.Atoi(minor)
	body, _ := json.MarshalIndent(struct {
		Major                 string `json:"major"`
		Minor                 string `json:"minor"`
		EmulationMajor        string `json:"emulationMajor"`
		EmulationMinor        string `json:"emulationMinor"`
		MinCompatibilityMajor string `json:"minCompatibilityMajor"`
		MinCompatibilityMinor string `json:"minCompatibilityMinor"`
		GitVersion            string `json:"gitVersion"`
		GitCommit             string `json:"gitCommit"`
		GitTreeState          string `json:"gitTreeState"`
		BuildDate             string `json:"buildDate"`
		GoVersion             string `json:"goVersion"`
		Compiler              string `json:"compiler"`
		Platform              string `json:"platform"`
	}{major, minor, major, minor, major, strconv.Itoa(n - 1), gitVersion, "0000000000000000000000000000000000000000", "clean",
		"2026-01-01T00:00:00Z", runtime.Version(), "gc", runtime.GOOS + "/" + runtime.GOARCH}, "", "  ")
	return body
}

// serveDiscovery serves the discovery documents at path p (/api, /apis,
// a group, a group version), aggregated when the request accepts it;
// other paths under /api and /apis are a 404 Status, the rest the mux's
// plain 404.
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request, p string) {
	parts := splitPath(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	aggregated := wantsAggregated(r.Header.Get("Accept"))
	switch {
	case p == "/api" && aggregated:
		s.writeAggregated(w, r, []string{""})
	case p == "/api":
		writeJSON(w, http.StatusOK, apiVersions(r.Host))
	case p == "/api/v1":
		writeJSON(w, http.StatusOK, mustJSON(struct {
			Kind         string        `json:"kind"`
			GroupVersion string        `json:"groupVersion"`
			Resources    []apiResource `json:"resources"`
		}{"APIResourceList", "v1", s.apiResourcesLocked("", "v1")}))
	case p == "/apis" && aggregated:
		s.writeAggregated(w, r, s.reg.groups())
	case p == "/apis":
		writeJSON(w, http.StatusOK, s.groupListLocked())
	case len(parts) == 2 && parts[0] == "apis" && len(s.reg.versions(parts[1])) > 0:
		g := s.apiGroupLocked(parts[1])
		g.Kind, g.APIVersion = "APIGroup", "v1"
		writeJSON(w, http.StatusOK, mustJSON(g))
	case len(parts) == 3 && parts[0] == "apis" && len(s.reg.listed(parts[1], parts[2])) > 0:
		writeJSON(w, http.StatusOK, mustJSON(struct {
			Kind         string        `json:"kind"`
			APIVersion   string        `json:"apiVersion"`
			GroupVersion string        `json:"groupVersion"`
			Resources    []apiResource `json:"resources"`
		}{"APIResourceList", "v1", parts[1] + "/" + parts[2], s.apiResourcesLocked(parts[1], parts[2])}))
	case len(parts) >= 2 && parts[0] == "apis" && (len(s.reg.versions(parts[1])) == 0 || s.reg.crdOnly(parts[1])):
		http.NotFound(w, r) // no handler at all for the group, or its CRDs' passed it on
	case len(parts) > 0 && (parts[0] == "api" || parts[0] == "apis"):
		writeError(w, errResourceNotFound())
	default:
		http.NotFound(w, r)
	}
}

// apiVersions is the body of /api: the core group's one version, served
// to every client address at host.
func apiVersions(host string) []byte {
	type cidr struct {
		ClientCIDR    string `json:"clientCIDR"`
		ServerAddress string `json:"serverAddress"`
	}
	return mustJSON(struct {
		Kind     string   `json:"kind"`
		Versions []string `json:"versions"`
		Address  []cidr   `json:"serverAddressByClientCIDRs"`
	}{"APIVersions", []string{"v1"}, []cidr{{"0.0.0.0/0", host}}})
}

// groupListLocked is the body of /apis, unaggregated. The caller holds
// s.mu.
func (s *Server) groupListLocked() []byte {
	groups := []apiGroup{}
	for _, g := range s.reg.groups() {
		groups = append(groups, s.apiGroupLocked(g))
	}
	return mustJSON(struct {
		Kind       string     `json:"kind"`
		APIVersion string     `json:"apiVersion"`
		Groups     []apiGroup `json:"groups"`
	}{"APIGroupList", "v1", groups})
}

// wantsAggregated reports whether the Accept header asks for aggregated
// discovery before anything else.
func wantsAggregated(accept string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if mt == "application/json" && params["as"] == "APIGroupDiscoveryList" &&
			params["g"] == "apidiscovery.k8s.io" && params["v"] == "v2" {
			return true
		}
		if params["as"] == "" && (mt == "application/json" || mt == "*/*") {
			return false
		}
	}
	return false
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("kubetest: encode discovery: " + err.Error())
	}
	return b
}

func (s *Server) apiGroupLocked(group string) apiGroup {
	g := apiGroup{Name: group, Versions: []groupVersion{}}
	for _, v := range s.reg.versions(group) {
		g.Versions = append(g.Versions, groupVersion{GroupVersion: group + "/" + v, Version: v})
	}
	g.PreferredVersion = g.Versions[0]
	return g
}

// apiResourcesLocked lists a group version's resources and their
// subresources (status, scale, and namespaces/finalize), by name.
func (s *Server) apiResourcesLocked(group, version string) []apiResource {
	out := []apiResource{}
	for _, r := range s.reg.listed(group, version) {
		hash := r.storageVersionHash()
		if r.Verbs != nil {
			hash = "" // not stored
		}
		out = append(out, apiResource{Name: r.Plural, SingularName: r.Singular, Namespaced: r.Namespaced,
			Kind: r.Kind, Verbs: r.verbs(), ShortNames: r.ShortNames, Categories: r.Categories,
			StorageVersionHash: hash})
		status := apiResource{Name: r.Plural + "/status", Namespaced: r.Namespaced, Kind: r.Kind,
			Verbs: []string{"get", "patch", "update"}}
		scale := apiResource{Name: r.Plural + "/scale", Namespaced: r.Namespaced, Group: "autoscaling",
			Version: "v1", Kind: "Scale", Verbs: []string{"get", "patch", "update"}}
		// A CRD's status comes before its scale, a built-in's after, as
		// the real server lists them.
		if r.Scale != nil && r.CRD == "" {
			out = append(out, scale)
		}
		if isNamespaces(r) {
			out = append(out, apiResource{Name: "namespaces/finalize", Kind: r.Kind, Verbs: []string{"update"}})
		}
		if r.Status {
			out = append(out, status)
		}
		if r.Scale != nil && r.CRD != "" {
			out = append(out, scale)
		}
	}
	slices.SortStableFunc(out, func(a, b apiResource) int {
		ap, _, _ := strings.Cut(a.Name, "/")
		bp, _, _ := strings.Cut(b.Name, "/")
		return strings.Compare(ap, bp)
	})
	return out
}

// writeAggregated writes the APIGroupDiscoveryList of groups, with an ETag
// the client may send back in If-None-Match.
func (s *Server) writeAggregated(w http.ResponseWriter, r *http.Request, groups []string) {
	items := []discoveryGroup{}
	for _, g := range groups {
		var dg discoveryGroup
		dg.Metadata.Name = g
		for _, v := range s.reg.versions(g) {
			dv := discoveryVersion{Version: v, Resources: []discoveryResource{}, Freshness: "Current"}
			list := s.reg.listed(g, v)
			slices.SortFunc(list, func(a, b *resource) int { return strings.Compare(a.Plural, b.Plural) })
			for _, res := range list {
				scope := "Cluster"
				if res.Namespaced {
					scope = "Namespaced"
				}
				dr := discoveryResource{Resource: res.Plural, ResponseKind: kindRef{Kind: res.Kind}, Scope: scope,
					SingularResource: res.Singular, Verbs: res.verbs(), ShortNames: res.ShortNames,
					Categories: res.Categories}
				if isNamespaces(res) {
					dr.Subresources = []discoverySubresource{{Subresource: "finalize",
						ResponseKind: kindRef{Kind: res.Kind}, Verbs: []string{"update"}}}
				}
				if res.Status {
					dr.Subresources = append(dr.Subresources, discoverySubresource{Subresource: "status",
						ResponseKind: kindRef{Kind: res.Kind}, Verbs: []string{"get", "patch", "update"}})
				}
				if res.Scale != nil {
					// After status for CRDs, before it for built-ins, as
					// the real server lists them.
					sc := discoverySubresource{Subresource: "scale", ResponseKind: kindRef{Group: "autoscaling", Version: "v1",
						Kind: "Scale"}, Verbs: []string{"get", "patch", "update"}}
					if res.CRD != "" {
						dr.Subresources = append(dr.Subresources, sc)
					} else {
						dr.Subresources = append([]discoverySubresource{sc}, dr.Subresources...)
					}
				}
				dv.Resources = append(dv.Resources, dr)
			}
			dg.Versions = append(dg.Versions, dv)
		}
		items = append(items, dg)
	}
	body := mustJSON(struct {
		Kind       string           `json:"kind"`
		APIVersion string           `json:"apiVersion"`
		Metadata   struct{}         `json:"metadata"`
		Items      []discoveryGroup `json:"items"`
	}{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2", Items: items})
	sum := sha256.Sum256(body)
	etag := `"` + strings.ToUpper(hex.EncodeToString(sum[:])) + `"`
	h := w.Header()
	h.Set("Etag", etag)
	h.Set("Vary", "Accept")
	h.Set("Cache-Control", "public")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", aggregatedType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// compareKubeVersions orders versions as Kubernetes prefers them: GA before
// beta before alpha, higher numbers first, then other strings by name.
func compareKubeVersions(a, b string) int {
	ka, kb := parseKubeVersion(a), parseKubeVersion(b)
	switch {
	case ka.ok && !kb.ok:
		return -1
	case !ka.ok && kb.ok:
		return 1
	case !ka.ok && !kb.ok:
		return strings.Compare(a, b)
	case ka.stability != kb.stability:
		return kb.stability - ka.stability
	case ka.major != kb.major:
		return kb.major - ka.major
	}
	return kb.minor - ka.minor
}

type kubeVersion struct {
	ok                      bool
	major, stability, minor int
}

func parseKubeVersion(v string) kubeVersion {
	rest, ok := strings.CutPrefix(v, "v")
	if !ok {
		return kubeVersion{}
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	major, err := strconv.Atoi(rest[:i])
	if err != nil || major == 0 {
		return kubeVersion{}
	}
	kv := kubeVersion{ok: true, major: major, stability: 3}
	rest = rest[i:]
	if rest == "" {
		return kv
	}
	switch {
	case strings.HasPrefix(rest, "beta"):
		kv.stability, rest = 2, rest[4:]
	case strings.HasPrefix(rest, "alpha"):
		kv.stability, rest = 1, rest[5:]
	default:
		return kubeVersion{}
	}
	if kv.minor, err = strconv.Atoi(rest); err != nil || kv.minor == 0 {
		return kubeVersion{}
	}
	return kv
}
