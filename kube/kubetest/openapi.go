// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/openapi"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
)

// This file serves the OpenAPI documents: /openapi/v3 (the index of
// group-version documents, each with a hash that changes with it),
// /openapi/v3/<path> (a document; with a stale hash, a redirect to the
// current one), and /openapi/v2 (one document for everything, JSON only).
// Built-in kinds publish what kube-apiserver 1.36 publishes (captured),
// limited to the resources the server serves; every served CRD version
// adds the document the real server builds from its openAPIV3Schema
// (internal/openapi), and takes it away when the CRD goes.

// openAPIDoc is an encoded document and its hash (the ETag and the
// index's hash: upper-case hex SHA-512, as kube-openapi computes it).
type openAPIDoc struct {
	body []byte
	hash string
}

func newOpenAPIDoc(v any) openAPIDoc {
	body, err := json.Marshal(v)
	if err != nil {
		panic("kubetest: encode OpenAPI document: " + err.Error())
	}
	sum := sha512.Sum512(body)
	return openAPIDoc{body: body, hash: strings.ToUpper(hex.EncodeToString(sum[:]))}
}

// builtinOpenAPI holds the v3 documents of the built-in kinds, limited
// to what the newest minor serves; computed once per process.
var builtinOpenAPI = sync.OnceValue(func() map[string]openAPIDoc {
	v3, _ := builtinOpenAPIFor(newRegistry())
	return v3
})

// builtinOpenAPIV2 is /openapi/v2 of the built-in kinds, limited to what
// the newest minor serves; computed once per process.
var builtinOpenAPIV2 = sync.OnceValue(func() obj {
	return filterOpenAPIPaths(schema.OpenAPI().V2, newRegistry())
})

// builtinOpenAPIFor returns the v3 documents (by index path) and the v2
// document of the built-in kinds, limited to what reg serves.
func builtinOpenAPIFor(reg *registry) (v3 map[string]openAPIDoc, v2 obj) {
	data := schema.OpenAPI()
	v3 = map[string]openAPIDoc{}
	for p, doc := range data.V3 {
		v3[p] = newOpenAPIDoc(filterOpenAPIPaths(doc, reg))
	}
	return v3, filterOpenAPIPaths(data.V2, reg)
}

// builtinOpenAPIV3Locked returns the built-in v3 documents of the minor
// s acts as. The caller holds s.mu.
func (s *Server) builtinOpenAPIV3Locked() map[string]openAPIDoc {
	if s.minorOpenAPI != nil {
		v3, _ := s.minorOpenAPI()
		return v3
	}
	return builtinOpenAPI()
}

// builtinOpenAPIV2Locked returns the built-in v2 document of the minor s
// acts as. The caller holds s.mu.
func (s *Server) builtinOpenAPIV2Locked() obj {
	if s.minorOpenAPI != nil {
		_, v2 := s.minorOpenAPI()
		return v2
	}
	return builtinOpenAPIV2()
}

// filterOpenAPIPaths returns a copy of doc (top level and paths copied,
// the rest shared) without the paths of resources reg does not serve.
func filterOpenAPIPaths(doc obj, reg *registry) obj {
	out := make(obj, len(doc))
	for k, v := range doc {
		out[k] = v
	}
	paths, ok := doc["paths"].(obj)
	if !ok {
		return out
	}
	kept := obj{}
	for p, item := range paths {
		group, version, plural, sub, isResource := openAPIPathResource(p)
		if isResource {
			res := reg.lookup(group, version, plural)
			if res == nil || (sub != "" && (sub != "status" || !res.Status)) {
				continue
			}
		}
		kept[p] = item
	}
	out["paths"] = kept
	return out
}

// openAPIPathResource splits the path of an OpenAPI operation into the
// resource it serves: "/api/v1/namespaces/{namespace}/pods/{name}/status"
// is "", "v1", "pods", "status". ok is false for paths that name no
// resource ("/api/v1/", "/apis/apps/").
func openAPIPathResource(p string) (group, version, plural, sub string, ok bool) {
	parts := splitPath(p)
	var rest []string
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		version, rest = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		group, version, rest = parts[1], parts[2], parts[3:]
	default:
		return "", "", "", "", false
	}
	if rest[0] == "watch" {
		rest = rest[1:]
	}
	if len(rest) >= 3 && rest[0] == "namespaces" && rest[1] == "{namespace}" {
		rest = rest[2:]
	}
	if len(rest) == 0 {
		return "", "", "", "", false
	}
	plural = rest[0]
	if len(rest) >= 3 {
		sub = strings.Join(rest[2:], "/")
	}
	return group, version, plural, sub, true
}

// openAPIV3Docs returns the v3 documents the server publishes now, by
// index path. The caller holds s.mu.
func (s *Server) openAPIV3DocsLocked() map[string]openAPIDoc {
	builtin := s.builtinOpenAPIV3Locked()
	out := make(map[string]openAPIDoc, len(builtin))
	for p, d := range builtin {
		group, _, _ := strings.Cut(strings.TrimPrefix(p, "apis/"), "/")
		if strings.HasPrefix(p, "apis/") && len(s.reg.versions(group)) == 0 {
			continue // a built-in group this server does not serve
		}
		out[p] = d
	}
	// The real server publishes no group document for CRD groups.
	for gv, kinds := range s.crdKindsByGVLocked() {
		out["apis/"+gv] = newOpenAPIDoc(openapi.CRDV3(kinds))
	}
	return out
}

// openAPIModified is the Last-Modified of every document: when this
// process first served one (the real server's is when it built each).
var openAPIModified = sync.OnceValue(func() time.Time { return time.Now().UTC().Truncate(time.Second) })

// serveOpenAPI answers GET /openapi/v2, /openapi/v3 and /openapi/v3/...
// with the real server's headers: the index as text/plain without an
// ETag, documents as JSON with an ETag, Vary: Accept, and with a hash
// that matches, immutable caching for a year.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, p string) {
	h := w.Header()
	h.Set("Cache-Control", "no-cache, private")
	switch {
	case p == "/openapi/v2":
		h.Add("Vary", "Accept-Encoding")
		h.Add("Vary", "Accept")
		if !acceptsOpenAPIJSON(r.Header.Get("Accept")) {
			w.WriteHeader(http.StatusNotAcceptable)
			return
		}
		var doc openAPIDoc
		s.withLock(func() { doc = newOpenAPIDoc(s.openAPIV2Locked()) })
		serveOpenAPIDoc(w, r, doc)
	case p == "/openapi/v3":
		var docs map[string]openAPIDoc
		s.withLock(func() { docs = s.openAPIV3DocsLocked() })
		type entry struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		}
		index := map[string]entry{}
		for path, d := range docs {
			index[path] = entry{ServerRelativeURL: openAPIURL(path, d.hash)}
		}
		body, _ := json.Marshal(struct {
			Paths map[string]entry `json:"paths"`
		}{index})
		h.Set("Content-Type", "text/plain; charset=utf-8")
		// No Last-Modified (the real server sends one): kubectl's HTTP
		// cache would revalidate with If-Modified-Since, and a CRD made
		// within the same second would stay unseen.
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	default:
		path := strings.TrimPrefix(p, "/openapi/v3/")
		var d openAPIDoc
		var ok bool
		s.withLock(func() { d, ok = s.openAPIV3DocsLocked()[path] })
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		h.Add("Vary", "Accept")
		if !acceptsOpenAPIJSON(r.Header.Get("Accept")) {
			w.WriteHeader(http.StatusNotAcceptable)
			return
		}
		if hash := r.URL.Query().Get("hash"); hash != "" {
			if hash != d.hash {
				h.Set("Content-Type", "application/json")
				h.Set("Etag", `"`+d.hash+`"`)
				http.Redirect(w, r, openAPIURL(path, d.hash), http.StatusMovedPermanently)
				return
			}
			h.Set("Cache-Control", "public, immutable")
			h.Set("Expires", time.Now().UTC().AddDate(1, 0, 0).Format(time.RFC1123))
		}
		serveOpenAPIDoc(w, r, d)
	}
}

// openAPIURL is the index's serverRelativeURL of a document.
func openAPIURL(path, hash string) string {
	return "/openapi/v3/" + path + "?" + url.Values{"hash": {hash}}.Encode()
}

// serveOpenAPIDoc writes a JSON document with its ETag, answering 304 to a
// matching If-None-Match.
func serveOpenAPIDoc(w http.ResponseWriter, r *http.Request, d openAPIDoc) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Etag", `"`+d.hash+`"`)
	http.ServeContent(w, r, "", openAPIModified(), bytes.NewReader(d.body))
}

// acceptsOpenAPIJSON reports whether the Accept header admits JSON (the
// only form served; kube-apiserver also serves protobuf).
func acceptsOpenAPIJSON(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["q"] == "0" {
			continue
		}
		if slices.Contains([]string{"application/json", "application/*", "*/*"}, mt) {
			return true
		}
	}
	return false
}

// crdKindsByGVLocked returns the served CRD versions by "group/version".
// The caller holds s.mu.
func (s *Server) crdKindsByGVLocked() map[string][]openapi.CRDKind {
	crds := s.cols["apiextensions.k8s.io/customresourcedefinitions"]
	out := map[string][]openapi.CRDKind{}
	for gv, list := range s.reg.byGV {
		for _, r := range list {
			rec := crds.objects[r.CRD]
			if r.CRD == "" || rec == nil {
				continue
			}
			crd := mustDecode(rec.raw)
			k := openapi.CRDKind{Names: openapi.CRDNames{Group: r.Group, Version: r.Version, Kind: r.Kind, ListKind: r.ListKind, Plural: r.Plural},
				Scope: "Cluster", Status: r.Status, Schema: schema.CRDVersionSchema(crd, r.Version)}
			if r.Namespaced {
				k.Scope = "Namespaced"
			}
			for _, f := range r.Fields {
				k.Selectable = append(k.Selectable, obj{"fieldPath": f})
			}
			out[gv] = append(out[gv], k)
		}
	}
	for _, kinds := range out {
		slices.SortFunc(kinds, func(a, b openapi.CRDKind) int { return strings.Compare(a.Names.Kind, b.Names.Kind) })
	}
	return out
}

// openAPIV2Locked returns /openapi/v2: the built-in document (limited to
// the served resources) with every served CRD version's paths and
// definitions merged in. The caller holds s.mu.
func (s *Server) openAPIV2Locked() obj {
	base := s.builtinOpenAPIV2Locked()
	out := make(obj, len(base))
	for k, v := range base {
		out[k] = v
	}
	paths, defs := obj{}, obj{}
	for k, v := range base["paths"].(obj) {
		paths[k] = v
	}
	for k, v := range base["definitions"].(obj) {
		defs[k] = v
	}
	for _, kinds := range s.crdKindsByGVLocked() {
		for _, k := range kinds {
			p, d := openapi.CRDV2Parts(k)
			for name, v := range p {
				paths[name] = v
			}
			for name, v := range d {
				defs[name] = v
			}
		}
	}
	out["paths"], out["definitions"] = paths, defs
	return out
}
