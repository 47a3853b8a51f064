// SPDX-License-Identifier: Apache-2.0

package scale

import (
	"fmt"
	"mime"
	"net/http"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/media"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file holds what a read, update or patch of a Scale needs besides
// storing the object, as kube-apiserver answers it.

// Read is the Scale a read of o answers ([Paths.Of]): a built-in kind's
// defaults to 1 replica; a custom resource's (custom) without its spec
// replicas is the real server's 500.
func (p *Paths) Read(o obj, custom bool) (obj, *kube.StatusError) {
	def := int64(1) // a Deployment's default
	if custom {
		def = 0
	}
	sc, ok := p.Of(o, def)
	if !ok {
		msg := fmt.Sprintf("the spec replicas field %q does not exist", p.SpecReplicas)
		return nil, apierr.New(http.StatusInternalServerError, kube.ReasonInternalError, "Internal error occurred: "+msg,
			&kube.StatusDetails{Causes: []kube.StatusCause{{Message: msg}}})
	}
	return sc, nil
}

// forWrite is the Scale a write of o's Scale starts from: a custom
// resource without its spec replicas is written as one of 0 replicas
// (accepted, as the real server accepts it, where a read is its 500).
func (p *Paths) forWrite(o obj, custom bool) obj {
	if sc, err := p.Read(o, custom); err == nil {
		return sc
	}
	cp := unstructured.DeepCopy(o).(obj)
	SetField(cp, p.SpecReplicas, int64(0))
	sc, _ := p.Read(cp, custom)
	return sc
}

// Change is what a Scale update or patch does to the current Scale.
type Change func(sc obj) (obj, *kube.StatusError)

// ReadChange reads the body of a Scale update (update) or patch r: an
// update's body replaces the Scale (a kind other than Scale is a 400); a
// patch's media type must be one of [PatchTypes] (else the real server's
// 415) and its body parse ([ParsePatch]).
func ReadChange(r *http.Request, update bool) (Change, *kube.StatusError) {
	if update {
		body, _, _, numErr, err := media.DecodeRequest(r)
		if numErr != nil {
			err = apierr.BadRequest("the object provided could not be decoded: " + numErr.Error())
		}
		if err != nil {
			return nil, err
		}
		if kind := unstructured.String(body, "kind"); kind != "" && kind != "Scale" {
			return nil, apierr.BadRequest(fmt.Sprintf("the kind %q in the body does not match the kind %q of the request", kind, "Scale"))
		}
		return func(obj) (obj, *kube.StatusError) { return unstructured.DeepCopy(body).(obj), nil }, nil
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || !slices.Contains(PatchTypes, mt) {
		return nil, apierr.New(http.StatusUnsupportedMediaType, kube.ReasonUnsupportedMedia,
			"415: Unsupported Media Type", &kube.StatusDetails{})
	}
	body, serr := media.ReadBody(r)
	if serr != nil {
		return nil, serr
	}
	change, perr := ParsePatch(mt, body)
	if perr != nil {
		return nil, perr.Status()
	}
	return func(sc obj) (obj, *kube.StatusError) {
		o, perr := change(sc)
		if perr != nil {
			return nil, perr.Status()
		}
		return o, nil
	}, nil
}

// Write applies change to cur's Scale (a custom resource's without spec
// replicas as one of 0) and sets cur's spec replicas to the result's,
// which must name t's object, carry cur's resourceVersion if any (else
// the real server's 409) and not be negative (its 422, worded for a
// custom resource as its CRD's validation words it).
func (p *Paths) Write(cur obj, change Change, t Target) (obj, *kube.StatusError) {
	next, err := change(p.forWrite(cur, t.Custom))
	if err != nil {
		return nil, err
	}
	meta := unstructured.Metadata(next)
	if name := unstructured.String(meta, "name"); name != t.Name {
		return nil, apierr.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, t.Name))
	}
	if rv := unstructured.String(meta, "resourceVersion"); rv != "" && rv != unstructured.String(unstructured.Metadata(cur), "resourceVersion") {
		return nil, apierr.Conflict(t.Group, t.Plural, t.Name, apierr.MsgModified)
	}
	spec, _ := next["spec"].(obj)
	n, _ := unstructured.IntegerValue(spec["replicas"])
	if n < 0 {
		if t.Custom {
			return nil, apierr.Invalid(t.Group, t.Kind, t.Name, []fielderr.Error{{Type: "FieldValueInvalid",
				Field: p.SpecReplicas, Value: n, Detail: "should be a non-negative integer"}})
		}
		return nil, apierr.Invalid("autoscaling", "Scale", t.Name, []fielderr.Error{{Type: "FieldValueInvalid",
			Field: "spec.replicas", Value: n, Detail: "must be greater than or equal to 0"}})
	}
	SetField(cur, p.SpecReplicas, n)
	return cur, nil
}
