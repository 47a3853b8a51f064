// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/internal/yaml"
	"github.com/kubeloop/kubeloop/kube"
)

// This file is server-side apply, approximated without schemas: a missing
// object is created from the configuration (201); an existing one gets the
// configuration merged in (maps merged key by key; lists replaced, except
// metadata.finalizers, a set, and metadata.ownerReferences, keyed by uid).
// Fields the manager applied before and omits now are removed unless
// another manager owns them. Another manager's field that the
// configuration would change is a conflict (409) unless force=true, which
// takes it over.

func (s *Server) serveApply(c *call, body []byte) {
	if c.q.Get("fieldManager") == "" {
		writeError(c.w, errInvalid("meta.k8s.io", "PatchOptions", "", []fieldError{{
			Type: "FieldValueRequired", Field: "fieldManager", Detail: "is required for apply patch"}}))
		return
	}
	config, err := parseApplyBody(body)
	if err != nil {
		writeError(c.w, errBadRequest("error decoding YAML: "+err.Error()))
		return
	}
	if serr := checkKind(c.res, config); serr != nil {
		writeError(c.w, serr)
		return
	}
	meta := metaOf(config)
	if mf, ok := meta["managedFields"]; ok && mf != nil {
		writeError(c.w, errBadRequest("metadata.managedFields must be nil"))
		return
	}
	if serr := c.checkApplyConfig(config); serr != nil {
		writeError(c.w, serr)
		return
	}
	if str(meta, "name") == "" {
		meta["name"] = c.info.Name
	}
	wr := c.write()
	wr.apply, wr.force = true, queryBool(c.q, "force")
	s.mu.Lock()
	out, serr := s.applyLocked(wr, config)
	s.mu.Unlock()
	c.respondUpdate(out, serr)
}

// applyLocked applies config to the object wr names.
func (s *Server) applyLocked(wr *write, config obj) (updateResult, *kube.StatusError) {
	if name := str(metaOf(config), "name"); name != wr.name {
		return updateResult{}, errBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, wr.name))
	}
	prev := wr.col.objects[objectKey(wr.namespace, wr.name)]
	if prev == nil {
		if wr.sub != "" {
			return updateResult{}, errNotFound(wr.res, wr.name)
		}
		rec, err := s.createLocked(wr, config)
		return updateResult{rec: rec, created: true}, err
	}
	live := mustDecode(prev.raw)
	live["apiVersion"] = wr.res.apiVersion()
	applied := applySet(wr.res, wr.sub, config)
	entries := parseManagedFields(metaOf(live))
	var mine *mfEntry
	var conflicts []string // "manager\x00path"
	for _, e := range entries {
		if e.Manager == wr.manager && e.Operation == "Apply" && e.Subresource == wr.sub {
			mine = e
			continue
		}
		for p := range applied {
			if !e.Fields[p] {
				continue
			}
			lv, _ := lookup(live, p)
			cv, _ := lookup(config, p)
			if reflect.DeepEqual(lv, cv) {
				continue
			}
			if wr.force {
				delete(e.Fields, p)
			} else {
				conflicts = append(conflicts, managerName(e)+pathSep+p)
			}
		}
	}
	if len(conflicts) > 0 {
		return updateResult{}, errApplyConflict(conflicts)
	}
	if mine != nil {
		for p := range mine.Fields {
			if applied[p] || ownedByOther(entries, mine, p) {
				continue
			}
			deletePath(live, p)
		}
	}
	mergeApply(live, config)
	metaOf(live)["resourceVersion"] = formatRV(prev.rv)
	return s.updateLocked(wr, live, func(meta, _, next obj, now string) {
		for _, e := range entries {
			e.Fields.prune(next)
		}
		if mine == nil {
			mine = &mfEntry{Manager: wr.manager, Operation: "Apply", Subresource: wr.sub}
			entries = append(entries, mine)
		}
		mine.Fields, mine.APIVersion, mine.Time = applied, wr.res.apiVersion(), now
		setManagedFields(meta, entries)
	})
}

// applySet is the set of fields a configuration applies: every leaf, no
// ".", limited to status for the status subresource and without status
// for the main resource of a kind that has the subresource.
func applySet(res *resource, sub string, config obj) fieldSet {
	set := fieldDiff(res, nil, config, false)
	for p := range set {
		inStatus := p == "f:status" || strings.HasPrefix(p, "f:status"+pathSep)
		if (sub == "status") != inStatus && (sub == "status" || res.Status) {
			delete(set, p)
		}
	}
	return set
}

// recordApply writes the managedFields of an object created by apply.
func recordApply(meta obj, set fieldSet, manager, apiVersion, sub, now string) {
	setManagedFields(meta, []*mfEntry{{Manager: manager, Operation: "Apply", APIVersion: apiVersion,
		Time: now, Subresource: sub, Fields: set}})
}

func ownedByOther(entries []*mfEntry, mine *mfEntry, p string) bool {
	for _, e := range entries {
		if e != mine && e.Fields[p] {
			return true
		}
	}
	return false
}

// managerName names a manager as conflicts print it.
func managerName(e *mfEntry) string {
	name := strconv.Quote(e.Manager)
	if e.Subresource != "" {
		name += " with subresource " + strconv.Quote(e.Subresource)
	}
	if e.Operation == "Update" {
		name += " using " + e.APIVersion
	}
	return name
}

// errApplyConflict is the real server's conflict error (NewConflictError of
// the field manager).
func errApplyConflict(conflicts []string) *kube.StatusError {
	slices.Sort(conflicts)
	causes := make([]kube.StatusCause, len(conflicts))
	byManager := map[string][]string{}
	var managers []string
	for i, c := range conflicts {
		m, p, _ := strings.Cut(c, pathSep)
		causes[i] = kube.StatusCause{Type: "FieldManagerConflict", Message: "conflict with " + m, Field: fieldPathString(p)}
		if _, seen := byManager[m]; !seen {
			managers = append(managers, m)
		}
		byManager[m] = append(byManager[m], fieldPathString(p))
	}
	var msg string
	if len(conflicts) == 1 {
		msg = fmt.Sprintf("Apply failed with 1 conflict: conflict with %s: %s", managers[0], causes[0].Field)
	} else {
		var lines []string
		for _, m := range managers {
			lines = append(lines, "conflicts with "+m+":")
			for _, p := range byManager[m] {
				lines = append(lines, "- "+p)
			}
		}
		msg = fmt.Sprintf("Apply failed with %d conflicts: %s", len(conflicts), strings.Join(lines, "\n"))
	}
	return statusError(http.StatusConflict, kube.ReasonConflict, msg, &kube.StatusDetails{Causes: causes})
}

// deletePath removes the field at p from o.
func deletePath(o obj, p string) {
	elems := strings.Split(p, pathSep)
	parentPath := strings.Join(elems[:len(elems)-1], pathSep)
	last := elems[len(elems)-1]
	var parent any = o
	if parentPath != "" {
		var ok bool
		if parent, ok = lookup(o, parentPath); !ok {
			return
		}
	}
	switch {
	case strings.HasPrefix(last, "f:"):
		if m, ok := parent.(obj); ok {
			delete(m, last[2:])
		}
	case strings.HasPrefix(last, "v:"), strings.HasPrefix(last, "k:"):
		list := "ownerReferences"
		if last[0] == 'v' {
			list = "finalizers"
		}
		grand, ok := lookup(o, strings.Join(elems[:len(elems)-2], pathSep))
		if m, isMap := grand.(obj); ok && isMap {
			items, _ := parent.([]any)
			m[list] = slices.DeleteFunc(slices.Clone(items), func(it any) bool { return listElement(list, it) == last })
		}
	}
}

// mergeApply merges config into live.
func mergeApply(live, config obj) {
	for k, cv := range config {
		if k == "metadata" {
			lm, cm := metaOf(live), metaOf(config)
			for mk, mv := range cm {
				switch mk {
				case "finalizers", "ownerReferences":
					lm[mk] = mergeList(mk, lm[mk], mv)
				case "labels", "annotations":
					lv, ok := lm[mk].(obj)
					cvm, isMap := mv.(obj)
					if !ok || !isMap {
						lm[mk] = deepCopy(mv)
						continue
					}
					for lk, v := range cvm {
						lv[lk] = v
					}
				case "name", "namespace", "generateName":
					lm[mk] = mv
				}
			}
			continue
		}
		lmap, lok := live[k].(obj)
		cmap, cok := cv.(obj)
		if lok && cok {
			mergeApply(lmap, cmap)
			continue
		}
		live[k] = deepCopy(cv)
	}
}

// mergeList merges an applied list into a live one: finalizers as a set,
// owner references by uid.
func mergeList(list string, live, applied any) any {
	out, _ := live.([]any)
	out = slices.Clone(out)
	in, _ := applied.([]any)
	for _, it := range in {
		el := listElement(list, it)
		i := slices.IndexFunc(out, func(o any) bool { return listElement(list, o) == el })
		if i >= 0 {
			out[i] = deepCopy(it)
		} else {
			out = append(out, deepCopy(it))
		}
	}
	return out
}

// parseApplyBody reads an apply configuration: JSON, or YAML with plain
// scalars typed as YAML types them (true, 3, 1.5, null).
func parseApplyBody(body []byte) (obj, error) {
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '{' {
		return decodeObject(body)
	}
	n, err := yaml.ParseNode(body)
	if err != nil {
		return nil, err
	}
	o, ok := yamlValue(n).(obj)
	if !ok {
		return nil, fmt.Errorf("the configuration is not a mapping")
	}
	return o, nil
}

func yamlValue(n *yaml.Node) any {
	switch n.Kind {
	case yaml.Mapping:
		m := make(obj, len(n.Entries))
		for _, e := range n.Entries {
			m[e.Key] = yamlValue(e.Value)
		}
		return m
	case yaml.Sequence:
		s := make([]any, len(n.Items))
		for i, it := range n.Items {
			s[i] = yamlValue(it)
		}
		return s
	case yaml.Scalar:
		if n.Quoted {
			return n.Text
		}
		switch n.Text {
		case "true", "True", "TRUE":
			return true
		case "false", "False", "FALSE":
			return false
		case "null", "Null", "NULL", "~", "":
			return nil
		}
		// A number as YAML writes one: not "inf", "nan" or "infinity",
		// which strconv reads as floats JSON cannot hold and YAML reads
		// as strings, nor hexadecimal or with underscores.
		if f, err := strconv.ParseFloat(n.Text, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) &&
			!strings.ContainsAny(n.Text, "xXpP_") {
			return f
		}
		return n.Text
	}
	return nil
}
