// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fieldvalidation"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file answers what internal/fieldvalidation finds in a write's
// body: type errors (400), unknown and duplicate fields by
// ?fieldValidation= (Strict refused, Warn a Warning header each), and an
// apply configuration that does not convert (500).

// parseFieldValidation reads ?fieldValidation= of a write into
// c.fieldValidation; absent, it is Warn, the real server's default.
func (c *call) parseFieldValidation() *kube.StatusError {
	v := c.q.Get("fieldValidation")
	switch v {
	case "":
		c.fieldValidation = fieldvalidation.Warn
	case fieldvalidation.Ignore, fieldvalidation.Warn, fieldvalidation.Strict:
		c.fieldValidation = v
	default:
		options := map[string]string{"create": "CreateOptions", "update": "UpdateOptions"}[c.info.Verb]
		if options == "" {
			options = "PatchOptions"
		}
		return apierr.Invalid("meta.k8s.io", options, "", []fielderr.Error{{Type: "FieldValueNotSupported",
			Field: "fieldValidation", Value: v, Detail: fielderr.NotSupportedDetail("", "Ignore", "Strict", "Warn")}})
	}
	return nil
}

// warn adds a Warning header as the real server writes them, once: its
// recorder drops a warning already recorded (a patch computed again after
// a conflict warns again).
func (c *call) warn(text string) {
	v := "299 - " + strconv.Quote(text)
	if !slices.Contains(c.w.Header().Values("Warning"), v) {
		c.w.Header().Add("Warning", v)
	}
}

// cannotHandle is the real server's answer to a body it cannot decode.
func cannotHandle(res *resource, err string) *kube.StatusError {
	return apierr.BadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %s", res.Kind, res.Version, res.Kind, err))
}

// fieldKind is what internal/fieldvalidation checks the call's kind by.
func (c *call) fieldKind() fieldvalidation.Kind {
	return fieldvalidation.Kind{Schema: c.res.Schema, Custom: c.res.CRD != "", SkipEmbedded: c.skipEmbedded}
}

// checkBody checks a create or update body o (parsed from body) against
// the kind's schema and prunes its unknown fields.
func (c *call) checkBody(body []byte, o obj) *kube.StatusError {
	warnings, typeErr := fieldvalidation.Body(c.fieldKind(), c.fieldValidation, body, o)
	if typeErr != "" {
		return cannotHandle(c.res, typeErr)
	}
	for _, e := range warnings {
		c.warn(e)
	}
	return nil
}

// checkPatched checks the object a patch of media type mt (body) produced;
// smpQuoted is the patch as a strategic merge left it.
func (c *call) checkPatched(mt string, body []byte, smpQuoted string, patched obj) *kube.StatusError {
	p := fieldvalidation.Patch{JSONPatch: mt == mediaJSONPatch, Strategic: mt == mediaStrategic, Body: body, SMPQuoted: smpQuoted}
	warnings, value, detail := fieldvalidation.Patched(c.fieldKind(), c.fieldValidation, p, patched)
	if detail != "" {
		return apierr.Invalid("", "", "", []fielderr.Error{{Type: "FieldValueInvalid", Field: "patch", Value: value, Detail: detail}})
	}
	for _, e := range warnings {
		c.warn(e)
	}
	return nil
}

// checkApplyConfig checks an apply configuration: an unknown field or a
// type mismatch is a 500, whatever ?fieldValidation= says.
func (c *call) checkApplyConfig(config obj) *kube.StatusError {
	msg := fieldvalidation.ApplyConfig(c.fieldKind(), config)
	if msg == "" {
		return nil
	}
	meta := unstructured.Metadata(config)
	gvk := c.res.Group + "/" + c.res.Version + ", Kind=" + c.res.Kind
	return apierr.New(http.StatusInternalServerError, "", fmt.Sprintf("failed to create typed patch object (%s/%s; %s): %s",
		unstructured.String(meta, "namespace"), unstructured.String(meta, "name"), gvk, msg), nil)
}
