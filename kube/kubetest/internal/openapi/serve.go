// SPDX-License-Identifier: Apache-2.0

package openapi

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/openapi/openapipb"
)

// This file serves the OpenAPI documents: /openapi/v3 (the index of
// group-version documents, each with a hash that changes with it),
// /openapi/v3/<path> (a document; with a stale hash, a redirect to the
// current one), and /openapi/v2 (one document for everything); the
// documents in JSON or, encoded by package openapipb, in protobuf.
// Built-in kinds publish what kube-apiserver publishes (captured from the
// newest release; a server acting as an older minor, its own subset),
// limited to the resources the server serves ([FilterPaths]); every
// served CRD version adds the document the real server builds from its
// openAPIV3Schema ([V3Docs], [MergeV2]), and takes it away when the CRD
// goes.

// Doc is an encoded document and its hash (the ETag and the index's
// hash: upper-case hex SHA-512, as kube-openapi computes it).
type Doc struct {
	Body []byte
	Hash string
	// pb holds the document's protobuf encodings, made on first use and
	// shared by the copies of the Doc (a Doc kept in a [Cache] is
	// encoded once); nil: encoded at each use.
	pb *encodings
}

// encodings are a Doc's protobuf forms, each made once.
type encodings struct {
	v2, v3 func() []byte
}

// NewDoc encodes v.
func NewDoc(v any) Doc {
	body, err := json.Marshal(v)
	if err != nil {
		panic("kubetest: encode OpenAPI document: " + err.Error())
	}
	sum := sha512.Sum512(body)
	return Doc{Body: body, Hash: strings.ToUpper(hex.EncodeToString(sum[:])), pb: &encodings{
		v2: sync.OnceValue(func() []byte { return protobuf(openapipb.V2, body) }),
		v3: sync.OnceValue(func() []byte { return protobuf(openapipb.V3, body) }),
	}}
}

// protobuf encodes body, a document json.Marshal wrote, with encode. What
// the encoder cannot encode (a key gnostic does not know; kube-apiserver
// would fail to encode such a document at all) is left out; the tests
// check that kubetest's documents have none.
func protobuf(encode func([]byte) ([]byte, []string, error), body []byte) []byte {
	out, _, err := encode(body)
	if err != nil {
		panic("kubetest: encode OpenAPI document: " + err.Error())
	}
	return out
}

// Cache keeps the documents of one state of a server's kinds, so that
// requests in a row build and encode them once. The zero Cache is empty;
// a Cache is safe for concurrent use. It holds one v2 document and one
// set of v3 documents (a few MB), replaced when the key changes.
type Cache struct {
	mu    sync.Mutex
	v2Key string
	v2    Doc
	v3Key string
	v3    map[string]Doc
}

// V2 returns the v2 document of the state named key, built by build
// unless the last one asked was of the same key.
func (c *Cache) V2(key string, build func() Doc) Doc {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.v2.Body == nil || c.v2Key != key {
		c.v2, c.v2Key = build(), key
	}
	return c.v2
}

// V3 returns the v3 documents of the state named key, built by build
// unless the last ones asked were of the same key.
func (c *Cache) V3(key string, build func() map[string]Doc) map[string]Doc {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.v3 == nil || c.v3Key != key {
		c.v3, c.v3Key = build(), key
	}
	return c.v3
}

// Served reports whether the server serves a resource (sub is a
// subresource, or empty).
type Served func(group, version, plural, sub string) bool

// FilterPaths returns a copy of doc (top level and paths copied, the
// rest shared) without the paths of resources that are not served.
func FilterPaths(doc obj, served Served) obj {
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
		group, version, plural, sub, isResource := PathResource(p)
		if isResource && !served(group, version, plural, sub) {
			continue
		}
		kept[p] = item
	}
	out["paths"] = kept
	return out
}

// PathResource splits the path of an OpenAPI operation into the
// resource it serves: "/api/v1/namespaces/{namespace}/pods/{name}/status"
// is "", "v1", "pods", "status". ok is false for paths that name no
// resource ("/api/v1/", "/apis/apps/").
func PathResource(p string) (group, version, plural, sub string, ok bool) {
	var parts []string
	if p = strings.Trim(p, "/"); p != "" {
		parts = strings.Split(p, "/")
	}
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

// V3Docs returns the v3 documents published now, by index path: those
// of builtin whose group servesGroup reports served, and one per group
// version of kinds (served CRD versions by "group/version").
func V3Docs(builtin map[string]Doc, servesGroup func(string) bool, kinds map[string][]CRDKind) map[string]Doc {
	out := make(map[string]Doc, len(builtin))
	for p, d := range builtin {
		group, _, _ := strings.Cut(strings.TrimPrefix(p, "apis/"), "/")
		if strings.HasPrefix(p, "apis/") && !servesGroup(group) {
			continue // a built-in group this server does not serve
		}
		out[p] = d
	}
	// The real server publishes no group document for CRD groups.
	for gv, ks := range kinds {
		out["apis/"+gv] = NewDoc(CRDV3(ks))
	}
	return out
}

// MergeV2 returns /openapi/v2: base (the built-in document limited to
// the served resources) with the paths and definitions of every served
// CRD version of kinds merged in. base is not modified.
func MergeV2(base obj, kinds map[string][]CRDKind) obj {
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
	for _, ks := range kinds {
		for _, k := range ks {
			p, d := CRDV2Parts(k)
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

// modified is the Last-Modified of every document: when this
// process first served one (the real server's is when it built each).
var modified = sync.OnceValue(func() time.Time { return time.Now().UTC().Truncate(time.Second) })

// Serve answers GET /openapi/v2, /openapi/v3 and /openapi/v3/... (p)
// with the real server's headers: the index as text/plain without an
// ETag, documents with an ETag (the JSON's hash) in the form the Accept
// header chooses as kube-openapi chooses it (JSON or protobuf; 406 for
// anything else), Vary: Accept, and with a hash that matches, immutable
// caching for a year. v2 and v3 compute the documents published now;
// Serve calls only the one it needs.
func Serve(w http.ResponseWriter, r *http.Request, p string, v2 func() Doc, v3 func() map[string]Doc) {
	h := w.Header()
	h.Set("Cache-Control", "no-cache, private")
	switch {
	case p == "/openapi/v2":
		h.Add("Vary", "Accept-Encoding")
		h.Add("Vary", "Accept")
		contentType := negotiate(r.Header.Get("Accept"), v2Forms)
		if contentType == "" {
			w.WriteHeader(http.StatusNotAcceptable)
			return
		}
		serveDoc(w, r, v2(), contentType)
	case p == "/openapi/v3":
		serveIndex(w, r, v3())
	default:
		path := strings.TrimPrefix(p, "/openapi/v3/")
		d, ok := v3()[path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		h.Add("Vary", "Accept")
		contentType := negotiate(r.Header.Get("Accept"), v3Forms)
		if contentType == "" {
			w.WriteHeader(http.StatusNotAcceptable)
			return
		}
		if hash := r.URL.Query().Get("hash"); hash != "" {
			if hash != d.Hash {
				h.Set("Content-Type", "application/json")
				h.Set("Etag", `"`+d.Hash+`"`)
				http.Redirect(w, r, docURL(path, d.Hash), http.StatusMovedPermanently)
				return
			}
			h.Set("Cache-Control", "public, immutable")
			h.Set("Expires", time.Now().UTC().AddDate(1, 0, 0).Format(time.RFC1123))
		}
		serveDoc(w, r, d, contentType)
	}
}

// protobuf returns d in protobuf: gnostic's v3 Document when v3, else
// its v2 Document.
func (d Doc) protobuf(v3 bool) []byte {
	switch {
	case d.pb == nil && v3:
		return protobuf(openapipb.V3, d.Body)
	case d.pb == nil:
		return protobuf(openapipb.V2, d.Body)
	case v3:
		return d.pb.v3()
	}
	return d.pb.v2()
}

// serveIndex answers /openapi/v3: the paths of docs and their URLs.
func serveIndex(w http.ResponseWriter, r *http.Request, docs map[string]Doc) {
	type entry struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	}
	index := map[string]entry{}
	for path, d := range docs {
		index[path] = entry{ServerRelativeURL: docURL(path, d.Hash)}
	}
	body, _ := json.Marshal(struct {
		Paths map[string]entry `json:"paths"`
	}{index})
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	// No Last-Modified (the real server sends one): kubectl's HTTP
	// cache would revalidate with If-Modified-Since, and a CRD made
	// within the same second would stay unseen.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// docURL is the index's serverRelativeURL of a document.
func docURL(path, hash string) string {
	return "/openapi/v3/" + path + "?" + url.Values{"hash": {hash}}.Encode()
}

// serveDoc writes document d as contentType (JSON, or protobuf
// encoded from the JSON) with its ETag, the JSON's hash in both forms as
// the real server has it, answering 304 to a matching If-None-Match
// without encoding.
func serveDoc(w http.ResponseWriter, r *http.Request, d Doc, contentType string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Etag", `"`+d.Hash+`"`)
	body := d.Body
	if contentType != "application/json" && r.Header.Get("If-None-Match") != `"`+d.Hash+`"` {
		body = d.protobuf(contentType == v3Protobuf)
	}
	http.ServeContent(w, r, "", modified(), bytes.NewReader(body))
}
