// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file is the part of TestGenerateOpenAPI that asks the real server
// what its Go decoder says of fields beyond their schema: the Go type of
// a field whose schema says only "string" (a named type, such as
// v1.RestartPolicy) and the embedded structs error paths name (Probe's
// ProbeHandler). For every scalar field of every struct the served kinds
// reach, it sends one dry-run create with a value of the wrong type and
// reads the decoder's error. The result is openapi/go-fields.json.gz.

// probeStep is one step from a kind's root to a field: the field, its
// struct, and the lists and maps around its value.
type probeStep struct {
	owner, field string
	wraps        []string // "list" or "map", outermost first
}

var rxGoField = regexp.MustCompile(`into Go struct field ([A-Za-z0-9_]+)\.([A-Za-z0-9_.]+) of type (\S+)$`)

// probeGoFields probes the kinds whose collections docs publish.
func (g *openAPIGen) probeGoFields(docs []obj) map[string]schema.GoField {
	components := obj{}
	for _, d := range docs {
		for k, v := range schema.ComponentsOf(d) {
			components[k] = v
		}
	}
	c := schema.NewCompiler(components)
	out := map[string]schema.GoField{}
	for _, d := range docs {
		paths, _ := d["paths"].(obj)
		for _, p := range unstructured.SortedKeys(paths) {
			item, _ := paths[p].(obj)
			post, _ := item["post"].(obj)
			gvk, _ := post["x-kubernetes-group-version-kind"].(obj)
			if gvk == nil || strings.Contains(p, "{name}") {
				continue
			}
			root := c.Named(kindComponent(components, unstructured.String(gvk, "group"), unstructured.String(gvk, "version"), unstructured.String(gvk, "kind")))
			if root == nil {
				continue
			}
			av := unstructured.String(gvk, "version")
			if grp := unstructured.String(gvk, "group"); grp != "" {
				av = grp + "/" + av
			}
			g.probeKind(root, strings.ReplaceAll(p, "{namespace}", "default"), av, unstructured.String(gvk, "kind"), out)
		}
	}
	return out
}

func kindComponent(components obj, group, version, kind string) string {
	for name, raw := range components {
		if slices.Contains(schema.GVKExtension(raw), group+"/"+version+"/"+kind) {
			return name
		}
	}
	return ""
}

// probeKind probes every scalar field reachable from root, each struct
// once (the answer depends on the struct and the field, not the path).
func (g *openAPIGen) probeKind(root *schema.Schema, collection, apiVersion, kind string, out map[string]schema.GoField) {
	type queued struct {
		s    *schema.Schema
		path []probeStep
	}
	seen := map[string]bool{root.Name: true}
	queue := []queued{{root, nil}}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		for _, f := range unstructured.SortedKeys(q.s.Properties) {
			step := probeStep{owner: q.s.Name, field: f}
			leaf := q.s.Properties[f]
			for leaf != nil {
				if leaf.Type == "array" {
					step.wraps, leaf = append(step.wraps, "list"), leaf.Elem
				} else if leaf.Additional != nil && len(leaf.Properties) == 0 {
					step.wraps, leaf = append(step.wraps, "map"), leaf.Additional
				} else {
					break
				}
			}
			path := append(slices.Clone(q.path), step)
			switch schema.KindOf(leaf) {
			case "struct":
				if !seen[leaf.Name] {
					seen[leaf.Name] = true
					queue = append(queue, queued{leaf, path})
				}
			case "scalar":
				// The root's apiVersion and kind select the decoder: not probed.
				if !schema.IsCustomDecoded(leaf) && !(q.s == root && (f == "apiVersion" || f == "kind")) {
					g.probeField(collection, apiVersion, kind, path, leaf, out)
				}
			}
		}
	}
}

// probeField sends a value of the wrong type at path and records what the
// decoder's error says beyond the schema.
func (g *openAPIGen) probeField(collection, apiVersion, kind string, path []probeStep, leaf *schema.Schema, out map[string]schema.GoField) {
	var v any = "x"
	if leaf.Type == "string" {
		v = 5
	}
	for i := len(path) - 1; i >= 0; i-- {
		for w := len(path[i].wraps) - 1; w >= 0; w-- {
			if path[i].wraps[w] == "list" {
				v = []any{v}
			} else {
				v = map[string]any{"k": v}
			}
		}
		v = map[string]any{path[i].field: v}
	}
	body := v.(map[string]any)
	if _, ok := body["apiVersion"]; !ok {
		body["apiVersion"] = apiVersion
	}
	if _, ok := body["kind"]; !ok {
		body["kind"] = kind
	}
	raw, _ := json.Marshal(body)
	code, answer := g.do("POST", collection+"?dryRun=All", string(raw))
	var st struct{ Message string }
	_ = json.Unmarshal(answer, &st)
	m := rxGoField.FindStringSubmatch(st.Message)
	if code != http.StatusBadRequest || m == nil {
		return
	}
	reported, goType := strings.Split(m[2], "."), m[3]
	// Embedded structs: the reported names the path does not have.
	j := 0
	for i := 0; i < len(reported) && j < len(path); i++ {
		if reported[i] == path[j].field {
			j++
			continue
		}
		key := path[j].owner + "." + path[j].field
		f := out[key]
		if !slices.Contains(f.Embedded, reported[i]) {
			f.Embedded = append(f.Embedded, reported[i])
		}
		out[key] = f
	}
	last := path[len(path)-1]
	for _, w := range last.wraps {
		if w == "list" {
			goType = strings.TrimPrefix(goType, "[]")
		} else {
			goType = strings.TrimPrefix(goType, "map[string]")
		}
	}
	if goType != schema.GoTypeName(leaf) {
		key := last.owner + "." + last.field
		f := out[key]
		f.Type = goType
		out[key] = f
	}
}
