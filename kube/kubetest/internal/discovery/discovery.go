// SPDX-License-Identifier: Apache-2.0

// Package discovery writes the discovery documents of kube-apiserver
// 1.36 for the resources a server serves: APIResourceLists
// ([Resources]), APIGroups and the APIGroupList ([NewGroup],
// [GroupList]), /api ([APIVersions]), aggregated discovery
// ([Aggregated], [ServeAggregated]), /version ([VersionInfo]), and the
// order of versions Kubernetes prefers ([CompareVersions]). The server
// decides what is served and routes the requests; this package only
// writes what it is given, in the real server's order.
//
// Guarantees:
//   - Pure: nothing given is modified or kept; the same resources always
//     give the same bytes (and so the same aggregated ETag).
//   - Byte for byte the real server's documents (kubectl get --raw of
//     /api, /apis, each group and group version, and aggregated
//     discovery agree with kube-apiserver 1.37.2's), each ending in a
//     newline, storageVersionHash included.
//   - Subresources are listed as the real server lists them: all a
//     built-in serves (kinds.Resource.Subresources, those kubetest cannot
//     carry out included), by name; a CRD's status before its scale.
package discovery

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

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
)

// AggregatedType is the media type of aggregated discovery.
const AggregatedType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// APIResource is a resource of an APIResourceList.
type APIResource struct {
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

// GroupVersion is a version of an APIGroup.
type GroupVersion struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

// APIGroup is a group as /apis lists it; Kind and APIVersion are set
// when it is a document of its own (/apis/GROUP).
type APIGroup struct {
	Kind             string         `json:"kind,omitempty"`
	APIVersion       string         `json:"apiVersion,omitempty"`
	Name             string         `json:"name"`
	Versions         []GroupVersion `json:"versions"`
	PreferredVersion GroupVersion   `json:"preferredVersion"`
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

// VersionInfo is the body of /version for the release version ("v1.36.3"),
// with the build fields of a real server's.
func VersionInfo(version string) []byte {
	major, minor, _ := strings.Cut(strings.TrimPrefix(version, "v"), ".")
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
	}{major, minor, major, minor, major, strconv.Itoa(n - 1), version, "0000000000000000000000000000000000000000", "clean",
		"2026-01-01T00:00:00Z", runtime.Version(), "gc", runtime.GOOS + "/" + runtime.GOARCH}, "", "  ")
	return body
}

// APIVersions is the body of /api: the core group's one version, served
// to every client address at host.
func APIVersions(host string) []byte {
	type cidr struct {
		ClientCIDR    string `json:"clientCIDR"`
		ServerAddress string `json:"serverAddress"`
	}
	return Document(struct {
		Kind     string   `json:"kind"`
		Versions []string `json:"versions"`
		Address  []cidr   `json:"serverAddressByClientCIDRs"`
	}{"APIVersions", []string{"v1"}, []cidr{{"0.0.0.0/0", host}}})
}

// ResourceList is the body of /api/v1 (apiVersion empty) or
// /apis/GROUP/VERSION (apiVersion "v1"): the APIResourceList of
// groupVersion.
func ResourceList(apiVersion, groupVersion string, resources []APIResource) []byte {
	return Document(struct {
		Kind         string        `json:"kind"`
		APIVersion   string        `json:"apiVersion,omitempty"`
		GroupVersion string        `json:"groupVersion"`
		Resources    []APIResource `json:"resources"`
	}{"APIResourceList", apiVersion, groupVersion, resources})
}

// GroupList is the body of /apis, unaggregated.
func GroupList(groups []APIGroup) []byte {
	return Document(struct {
		Kind       string     `json:"kind"`
		APIVersion string     `json:"apiVersion"`
		Groups     []APIGroup `json:"groups"`
	}{"APIGroupList", "v1", groups})
}

// NewGroup is the APIGroup of group served at versions, preferred first;
// versions must not be empty.
func NewGroup(group string, versions []string) APIGroup {
	g := APIGroup{Name: group, Versions: []GroupVersion{}}
	for _, v := range versions {
		g.Versions = append(g.Versions, GroupVersion{GroupVersion: group + "/" + v, Version: v})
	}
	g.PreferredVersion = g.Versions[0]
	return g
}

// WantsAggregated reports whether the Accept header asks for aggregated
// discovery before anything else.
func WantsAggregated(accept string) bool {
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

// MustJSON encodes v, a document of plain data.
func MustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("kubetest: encode discovery: " + err.Error())
	}
	return b
}

// Document is the body of a discovery document v: its JSON ending in a
// newline, as the real server's encoder ends it.
func Document(v any) []byte { return append(MustJSON(v), '\n') }

// Resources lists a group version's resources, each followed by its
// subresources ([kinds.Resource.Subresources]), by name.
func Resources(listed []*kinds.Resource) []APIResource {
	out := []APIResource{}
	for _, r := range listed {
		hash := r.StorageVersionHash()
		if r.Verbs != nil {
			hash = "" // not stored
		}
		out = append(out, APIResource{Name: r.Plural, SingularName: r.Singular, Namespaced: r.Namespaced,
			Kind: r.Kind, Verbs: r.DiscoveryVerbs(), ShortNames: r.ShortNames, Categories: r.Categories,
			StorageVersionHash: hash})
		for _, sub := range r.Subresources() {
			out = append(out, APIResource{Name: r.Plural + "/" + sub.Name, Namespaced: r.Namespaced,
				Group: sub.Group, Version: sub.Version, Kind: sub.Kind, Verbs: sub.Verbs})
		}
	}
	slices.SortStableFunc(out, func(a, b APIResource) int {
		ap, _, _ := strings.Cut(a.Name, "/")
		bp, _, _ := strings.Cut(b.Name, "/")
		return strings.Compare(ap, bp)
	})
	return out
}

// Group is what aggregated discovery lists of one group.
type Group struct {
	Name     string
	Versions []Version
}

// Version is a served version of a Group and what it lists.
type Version struct {
	Name      string
	Resources []*kinds.Resource
}

// Aggregated is the APIGroupDiscoveryList of groups.
func Aggregated(groups []Group) []byte {
	items := []discoveryGroup{}
	for _, g := range groups {
		var dg discoveryGroup
		dg.Metadata.Name = g.Name
		for _, v := range g.Versions {
			dv := discoveryVersion{Version: v.Name, Resources: []discoveryResource{}, Freshness: "Current"}
			list := slices.Clone(v.Resources)
			slices.SortFunc(list, func(a, b *kinds.Resource) int { return strings.Compare(a.Plural, b.Plural) })
			for _, res := range list {
				dv.Resources = append(dv.Resources, aggregatedResource(res))
			}
			dg.Versions = append(dg.Versions, dv)
		}
		items = append(items, dg)
	}
	return Document(struct {
		Kind       string           `json:"kind"`
		APIVersion string           `json:"apiVersion"`
		Metadata   struct{}         `json:"metadata"`
		Items      []discoveryGroup `json:"items"`
	}{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2", Items: items})
}

// aggregatedResource is res and its subresources as aggregated
// discovery lists them.
func aggregatedResource(res *kinds.Resource) discoveryResource {
	scope := "Cluster"
	if res.Namespaced {
		scope = "Namespaced"
	}
	dr := discoveryResource{Resource: res.Plural, ResponseKind: kindRef{Kind: res.Kind}, Scope: scope,
		SingularResource: res.Singular, Verbs: res.DiscoveryVerbs(), ShortNames: res.ShortNames,
		Categories: res.Categories}
	for _, sub := range res.Subresources() {
		dr.Subresources = append(dr.Subresources, discoverySubresource{Subresource: sub.Name,
			ResponseKind: kindRef{Group: sub.Group, Version: sub.Version, Kind: sub.Kind}, Verbs: sub.Verbs})
	}
	return dr
}

// AggregatedDoc is an APIGroupDiscoveryList's body and its ETag, computed
// once: a server keeps one per state of its kinds.
type AggregatedDoc struct {
	Body []byte
	ETag string
}

// NewAggregatedDoc hashes body, an APIGroupDiscoveryList ([Aggregated]),
// into its ETag as kube-apiserver does (SHA-256, upper-case hex, quoted).
func NewAggregatedDoc(body []byte) AggregatedDoc {
	sum := sha256.Sum256(body)
	return AggregatedDoc{Body: body, ETag: `"` + strings.ToUpper(hex.EncodeToString(sum[:])) + `"`}
}

// ServeAggregated writes d with its ETag, or a 304 when the client sent
// that ETag back in If-None-Match.
func ServeAggregated(w http.ResponseWriter, r *http.Request, d AggregatedDoc) {
	body, etag := d.Body, d.ETag
	h := w.Header()
	h.Set("Etag", etag)
	h.Set("Vary", "Accept")
	h.Set("Cache-Control", "public")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", AggregatedType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
