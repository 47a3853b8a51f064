// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file serves the scale subresource (kubectl scale, autoscalers):
// the autoscaling/v1 Scale of a Deployment, or of a custom resource whose
// CRD declares subresources.scale. A Scale is not stored: it is read from
// the object (spec replicas, status replicas, the selector) and a write of
// it changes the object's spec replicas only, recorded in managedFields
// as an update of subresource "scale" (without a time, as kube-apiserver
// 1.36 records it). Server-side apply of a Scale is not served.

// scalePaths says where a kind keeps what its Scale shows: dotted paths
// as a CRD's subresources.scale writes them (".spec.replicas").
type scalePaths struct {
	SpecReplicas, StatusReplicas, LabelSelector string
	// SelectorObject says the selector is a LabelSelector object (a
	// Deployment's spec.selector), shown as its string form; otherwise
	// it is already a string (a custom resource's labelSelectorPath).
	SelectorObject bool
}

// deploymentScale is where a Deployment keeps its scale.
func deploymentScale() *scalePaths {
	return &scalePaths{SpecReplicas: ".spec.replicas", StatusReplicas: ".status.replicas",
		LabelSelector: ".spec.selector", SelectorObject: true}
}

// crdScale reads a CRD version's subresources.scale, nil when absent.
func crdScale(sub obj) *scalePaths {
	sc, ok := sub["scale"].(obj)
	if !ok {
		return nil
	}
	return &scalePaths{SpecReplicas: unstructured.String(sc, "specReplicasPath"),
		StatusReplicas: unstructured.String(sc, "statusReplicasPath"),
		LabelSelector:  unstructured.String(sc, "labelSelectorPath")}
}

// at reads the field at a dotted path of o.
func at(o obj, p string) (any, bool) {
	var cur any = o
	for _, k := range strings.Split(strings.TrimPrefix(p, "."), ".") {
		m, ok := cur.(obj)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// setAt sets the field at a dotted path of o, making the objects on the
// way.
func setAt(o obj, p string, v any) {
	keys := strings.Split(strings.TrimPrefix(p, "."), ".")
	m := o
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(obj)
		if !ok {
			next = obj{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}

// scaleOf is the Scale of o, an object of res at res's version.
func scaleOf(res *resource, o obj) (obj, *kube.StatusError) {
	sp := res.Scale
	meta := unstructured.Metadata(o)
	sm := obj{}
	for _, k := range []string{"name", "namespace", "uid", "resourceVersion", "creationTimestamp"} {
		if v, ok := meta[k]; ok {
			sm[k] = v
		}
	}
	spec, status := obj{}, obj{"replicas": int64(0)}
	v, ok := at(o, sp.SpecReplicas)
	switch {
	case ok:
		if n, isInt := unstructured.IntegerValue(v); isInt && n != 0 {
			spec["replicas"] = n
		}
	case res.CRD != "":
		msg := fmt.Sprintf("the spec replicas field %q does not exist", sp.SpecReplicas)
		return nil, statusError(http.StatusInternalServerError, kube.ReasonInternalError, "Internal error occurred: "+msg,
			&kube.StatusDetails{Causes: []kube.StatusCause{{Message: msg}}})
	default:
		spec["replicas"] = int64(1) // a Deployment's default
	}
	if v, ok := at(o, sp.StatusReplicas); ok {
		if n, isInt := unstructured.IntegerValue(v); isInt {
			status["replicas"] = n
		}
	}
	if sel := scaleSelector(sp, o); sel != "" {
		status["selector"] = sel
	}
	return obj{"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": sm, "spec": spec, "status": status}, nil
}

// scaleSelector is the selector a Scale shows: the string at
// LabelSelector, or the LabelSelector object there in its string form.
func scaleSelector(sp *scalePaths, o obj) string {
	v, ok := at(o, sp.LabelSelector)
	if !ok || sp.LabelSelector == "" {
		return ""
	}
	if !sp.SelectorObject {
		s, _ := v.(string)
		return s
	}
	sel, ok := labelSelectorOf(v)
	if !ok {
		return ""
	}
	return sel.String()
}

// labelSelectorOf reads v, the JSON value of a LabelSelector (a Scale's
// target, a PodDisruptionBudget's spec.selector), as a selector; ok is
// false when v is not a valid one.
func labelSelectorOf(v any) (sel kube.Selector, ok bool) {
	raw, err := json.Marshal(v)
	if err != nil {
		return kube.Selector{}, false
	}
	var ls kube.LabelSelector
	if json.Unmarshal(raw, &ls) != nil {
		return kube.Selector{}, false
	}
	sel, err = ls.AsSelector()
	return sel, err == nil
}

// serveScale answers get, update and patch of a Scale.
func (s *Server) serveScale(c *call) {
	if c.info.Verb == "get" {
		var rec *record
		s.withLock(func() { rec = c.col.objects[c.key()] })
		if rec == nil {
			writeError(c.w, errNotFound(c.res, c.info.Name))
			return
		}
		c.respondScale(rec)
		return
	}
	change, serr := c.scaleChange()
	if serr != nil {
		writeError(c.w, serr)
		return
	}
	wr := c.write()
	rec, serr := s.patch(wr, func(cur obj) (obj, *kube.StatusError) {
		sc, err := scaleOf(c.res, cur)
		if err != nil {
			return nil, err
		}
		next, err := change(sc)
		if err != nil {
			return nil, err
		}
		meta := unstructured.Metadata(next)
		if name := unstructured.String(meta, "name"); name != c.info.Name {
			return nil, errBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, c.info.Name))
		}
		if rv := unstructured.String(meta, "resourceVersion"); rv != "" && rv != unstructured.String(unstructured.Metadata(cur), "resourceVersion") {
			return nil, errConflict(c.res, c.info.Name, msgModified)
		}
		spec, _ := next["spec"].(obj)
		n, _ := unstructured.IntegerValue(spec["replicas"])
		if n < 0 {
			if c.res.CRD != "" {
				return nil, errInvalid(c.res.Group, c.res.Kind, c.info.Name, []fielderr.Error{{Type: "FieldValueInvalid",
					Field: c.res.Scale.SpecReplicas, Value: n, Detail: "should be a non-negative integer"}})
			}
			return nil, errInvalid("autoscaling", "Scale", c.info.Name, []fielderr.Error{{Type: "FieldValueInvalid",
				Field: "spec.replicas", Value: n, Detail: "must be greater than or equal to 0"}})
		}
		setAt(cur, c.res.Scale.SpecReplicas, n)
		return cur, nil
	})
	if serr != nil {
		writeError(c.w, serr)
		return
	}
	c.respondScale(rec)
}

// respondScale answers the Scale of the stored rec.
func (c *call) respondScale(rec *record) {
	sc, err := scaleOf(c.res, c.res.fromStored(mustDecode(rec.raw)))
	if err != nil {
		writeError(c.w, err)
		return
	}
	writeJSON(c.w, http.StatusOK, encodeObject(sc))
}

// scaleChange reads the body of a Scale update or patch and returns what
// it does to the current Scale.
func (c *call) scaleChange() (func(sc obj) (obj, *kube.StatusError), *kube.StatusError) {
	if c.info.Verb == "update" {
		body, _, _, err := decodeRequestObject(c.r, nil)
		if err != nil {
			return nil, err
		}
		if kind := unstructured.String(body, "kind"); kind != "" && kind != "Scale" {
			return nil, errBadRequest(fmt.Sprintf("the kind %q in the body does not match the kind %q of the request", kind, "Scale"))
		}
		return func(obj) (obj, *kube.StatusError) { return unstructured.DeepCopy(body).(obj), nil }, nil
	}
	mt, _, err := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	if err != nil || (mt != mediaJSONPatch && mt != mediaMergePatch && mt != mediaStrategic) {
		return nil, statusError(http.StatusUnsupportedMediaType, kube.ReasonUnsupportedMedia,
			"415: Unsupported Media Type", &kube.StatusDetails{})
	}
	body, serr := readBody(c.r)
	if serr != nil {
		return nil, serr
	}
	if mt == mediaJSONPatch {
		ops, err := jsonpatch.ParseOperations(body)
		if err != nil {
			return nil, errBadRequest(err.Error())
		}
		return func(sc obj) (obj, *kube.StatusError) {
			patched, err := jsonpatch.ApplyValueLimit(sc, ops, maxJSONPatchCopyBytes)
			if err == nil {
				patched, err = unstructured.ExactNumbers(patched)
			}
			o, ok := patched.(obj)
			if err != nil || !ok {
				return nil, errPatchRejected()
			}
			return o, nil
		}, nil
	}
	if _, err := unstructured.DecodeObjectOrNull(body); err != nil {
		return nil, errBadRequest("error decoding patch: " + err.Error())
	}
	return func(sc obj) (obj, *kube.StatusError) {
		patch, _ := unstructured.DecodeObjectOrNull(body) // a merge consumes it
		o, _ := jsonpatch.MergeValue(sc, patch).(obj)
		if o == nil {
			return nil, errBadRequest("the patched document is not a JSON object")
		}
		return o, nil
	}, nil
}
