// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fieldvalidation"
)

// This file answers what internal/fieldvalidation finds in a write's
// body: type errors (400), unknown and duplicate fields by
// ?fieldValidation= (Strict refused, Warn a Warning header each), and an
// apply configuration that does not convert (500).

// parseFieldValidation reads ?fieldValidation= of a write into
// c.fieldValidation (fieldvalidation.Mode).
func (c *call) parseFieldValidation() *kube.StatusError {
	mode, err := fieldvalidation.Mode(c.q.Get("fieldValidation"), c.info.Verb)
	if err == nil {
		c.fieldValidation = mode
	}
	return err
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
		return fieldvalidation.PatchError(value, detail)
	}
	for _, e := range warnings {
		c.warn(e)
	}
	return nil
}

// checkApplyConfig checks an apply configuration: an unknown field or a
// type mismatch is a 500, whatever ?fieldValidation= says.
func (c *call) checkApplyConfig(config obj) *kube.StatusError {
	if msg := fieldvalidation.ApplyConfig(c.fieldKind(), config); msg != "" {
		return fieldvalidation.ApplyConfigError(config, c.res.Group, c.res.Version, c.res.Kind, msg)
	}
	return nil
}
