// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// This file reads the OpenAPI v3 documents a kind's schema is in: the
// index /openapi/v3 names one document per group-version, which holds the
// schemas of its kinds and of every type they reference.

// maxDocument bounds one document's size (the largest built-in one,
// api/v1, is about 1.5 MB).
const maxDocument = 64 << 20

// source is where the documents come from: a server, or kubetest in
// process.
type source struct {
	host   string
	http   *http.Client
	what   string // named in the generated file's header
	closer func()
}

// openSource connects to what o names. It sends no request.
func openSource(o options) (*source, error) {
	if o.kubetest {
		srv := kubetest.New(kubetest.Options{})
		src, err := sourceFor(srv.Config(), "kube/kubetest's schema")
		if err != nil {
			srv.Close()
			return nil, err
		}
		src.closer = srv.Close
		return src, nil
	}
	cfg, err := kube.LoadConfig(kube.LoadOptions{Path: o.kubeconfig})
	if err != nil {
		return nil, fmt.Errorf("load the server's configuration (or use -kubetest for the built-in kinds): %w", err)
	}
	return sourceFor(cfg, "the server's schema")
}

func sourceFor(cfg *kube.Config, what string) (*source, error) {
	hc, err := cfg.HTTPClient()
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", cfg.Host, err)
	}
	return &source{host: strings.TrimSuffix(cfg.Host, "/"), http: hc, what: what}, nil
}

func (s *source) close() {
	if s.closer != nil {
		s.closer()
	}
}

// get decodes the JSON document at path (with its query) into v.
func (s *source) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.host+path, nil)
	if err != nil {
		return fmt.Errorf("get %s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.http.Do(req)
	if err != nil {
		return fmt.Errorf("get %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return fmt.Errorf("get %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("get %s: the server answered %s: %.200s", path, resp.Status, body)
	}
	if len(body) > maxDocument {
		return fmt.Errorf("get %s: the document is larger than %d bytes", path, maxDocument)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

// describe names the source and the server's version.
func (s *source) describe(ctx context.Context) string {
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := s.get(ctx, "/version", &v); err != nil || v.GitVersion == "" {
		return s.what
	}
	return s.what + " (" + v.GitVersion + ")"
}

// groupVersions returns the index: the path of each group-version's
// document ("apis/apps/v1"), with the server's URL for it.
func (s *source) groupVersions(ctx context.Context) (map[string]string, error) {
	var index struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := s.get(ctx, "/openapi/v3", &index); err != nil {
		return nil, fmt.Errorf("read the OpenAPI v3 index (the server must serve /openapi/v3, as 1.27 and later do): %w", err)
	}
	out := map[string]string{}
	for path, p := range index.Paths {
		if path == "api/v1" || strings.Count(path, "/") == 2 && strings.HasPrefix(path, "apis/") {
			out[path] = p.URL
		}
	}
	return out, nil
}

// document is one group-version's OpenAPI document: its schemas by name.
type document struct {
	gv      string // "apps/v1", "v1"
	schemas map[string]*schema
}

func (s *source) document(ctx context.Context, path, u string) (*document, error) {
	if u == "" {
		u = "/openapi/v3/" + path
	}
	if parsed, err := url.Parse(u); err != nil || parsed.IsAbs() {
		return nil, fmt.Errorf("the OpenAPI index gives %q for %s, not a path on the server", u, path)
	}
	var d struct {
		Components struct {
			Schemas map[string]*schema `json:"schemas"`
		} `json:"components"`
	}
	if err := s.get(ctx, u, &d); err != nil {
		return nil, err
	}
	return &document{gv: apiVersions([]string{path})[0], schemas: d.Components.Schemas}, nil
}

// kind is a kind found in a document: the schema to write it from.
type kind struct {
	gvk  kube.GroupVersionKind
	name string // the schema's name, "io.k8s.api.apps.v1.Deployment"
	doc  *document
}

// findKind finds the kind named apiVersion/Kind, or Kind alone: in the
// document of its group-version, or, for a kind served only as a
// subresource (autoscaling/v1 Scale, policy/v1 Eviction), in any document.
func findKind(ctx context.Context, src *source, name string) (kind, error) {
	i := strings.LastIndex(name, "/")
	want, apiVersion := name[i+1:], ""
	if i >= 0 {
		apiVersion = name[:i]
	}
	if want == "" || !isIdent(want) {
		return kind{}, fmt.Errorf("kind %q: name it as apiVersion/Kind (apps/v1/Deployment, v1/ConfigMap) or Kind", name)
	}
	gvs, err := src.groupVersions(ctx)
	if err != nil {
		return kind{}, err
	}
	paths := slices.Sorted(maps.Keys(gvs))
	if apiVersion != "" {
		own := "apis/" + apiVersion
		if !strings.Contains(apiVersion, "/") {
			own = "api/" + apiVersion
		}
		if _, ok := gvs[own]; !ok {
			return kind{}, fmt.Errorf("kind %q: the server serves no %s (it serves %s)", name, apiVersion, strings.Join(apiVersions(paths), ", "))
		}
		paths = append([]string{own}, slices.DeleteFunc(paths, func(p string) bool { return p == own })...)
	}
	found := map[kube.GroupVersionKind]kind{}
	for _, path := range paths {
		doc, err := src.document(ctx, path, gvs[path])
		if err != nil {
			return kind{}, err
		}
		for _, k := range doc.kinds(want, apiVersion) {
			if _, dup := found[k.gvk]; !dup {
				found[k.gvk] = k
			}
		}
		if apiVersion != "" && len(found) > 0 {
			break
		}
	}
	return oneKind(name, found)
}

// oneKind returns the one kind found, or an error saying there is none or
// which there are.
func oneKind(name string, found map[kube.GroupVersionKind]kind) (kind, error) {
	if len(found) == 0 {
		return kind{}, fmt.Errorf("kind %q: no schema of the server's declares it", name)
	}
	var names []string
	for gvk, k := range found {
		if len(found) == 1 {
			return k, nil
		}
		names = append(names, gvk.APIVersion()+"/"+gvk.Kind)
	}
	slices.Sort(names)
	return kind{}, fmt.Errorf("kind %q is served by %s: name one", name, strings.Join(names, " and "))
}

// kinds returns the schemas of the document that declare the kind of
// apiVersion, or of any group-version when apiVersion is "".
func (d *document) kinds(want, apiVersion string) []kind {
	var out []kind
	for _, name := range slices.Sorted(maps.Keys(d.schemas)) {
		for _, g := range d.schemas[name].GVK {
			gvk := kube.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind}
			if g.Kind == want && (apiVersion == "" || gvk.APIVersion() == apiVersion) {
				out = append(out, kind{gvk: gvk, name: name, doc: d})
			}
		}
	}
	return out
}

// apiVersions returns the group-versions of document paths (apps/v1, v1).
func apiVersions(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = strings.TrimPrefix(strings.TrimPrefix(p, "apis/"), "api/")
	}
	return out
}
