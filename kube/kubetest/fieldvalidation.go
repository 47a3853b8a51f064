// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file is the decoding half of schema validation, as the real server
// does it before anything else in a write: type errors of built-in kinds
// (400, the Go decoder's message), unknown and duplicate fields reported
// by ?fieldValidation= (Strict: refused; Warn, the default: a Warning
// header each; Ignore: nothing), and the pruning of unknown fields. The
// schema validation of custom resources (422) is in internal/schema (crd.go).

// The values of ?fieldValidation=.
const (
	fieldValidationIgnore = "Ignore"
	fieldValidationWarn   = "Warn"
	fieldValidationStrict = "Strict"
)

// parseFieldValidation reads ?fieldValidation= of a write into
// c.fieldValidation; absent, it is Warn, the real server's default.
func (c *call) parseFieldValidation() *kube.StatusError {
	v := c.q.Get("fieldValidation")
	switch v {
	case "":
		c.fieldValidation = fieldValidationWarn
	case fieldValidationIgnore, fieldValidationWarn, fieldValidationStrict:
		c.fieldValidation = v
	default:
		options := map[string]string{"create": "CreateOptions", "update": "UpdateOptions"}[c.info.Verb]
		if options == "" {
			options = "PatchOptions"
		}
		return errInvalid("meta.k8s.io", options, "", []fielderr.Error{{Type: "FieldValueNotSupported",
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
	return errBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %s", res.Kind, res.Version, res.Kind, err))
}

// checkBody checks a create or update body o (parsed from body) against
// the kind's schema and prunes its unknown fields. A built-in kind's type
// error is a 400; unknown and duplicate fields are refused (Strict),
// warned about (Warn) or ignored.
func (c *call) checkBody(body []byte, o obj) *kube.StatusError {
	s := c.res.Schema
	if s == nil {
		return nil
	}
	var strict []string
	if c.res.CRD == "" {
		rep := schema.ScanBody(s, body, false)
		if rep.TypeErr != "" {
			return cannotHandle(c.res, rep.TypeErr)
		}
		strict = rep.Strict
		schema.Prune(s, o, false, true)
	} else {
		track := c.fieldValidation != fieldValidationIgnore
		if track {
			strict = schema.ScanBody(nil, body, true).Strict
		}
		strict = append(strict, schema.UnknownFieldErrors(schema.CoerceCustomResource(s, o, track))...)
	}
	if len(strict) == 0 || c.fieldValidation == fieldValidationIgnore {
		return nil
	}
	if c.fieldValidation == fieldValidationStrict {
		return cannotHandle(c.res, schema.StrictDecodingError(strict))
	}
	for _, e := range strict {
		c.warn(e)
	}
	return nil
}

// checkPatched checks the object a patch of media type mt (body) produced,
// as the real server decodes it: a built-in kind's type error, and with
// Strict unknown or duplicate fields, are a 422 on the field "patch" that
// quotes the patched object (JSON and merge patches) or smpQuoted, the
// patch as the strategic merge left it. Duplicates in the patch body come
// first.
func (c *call) checkPatched(mt string, body []byte, smpQuoted string, patched obj) *kube.StatusError {
	s := c.res.Schema
	if s == nil {
		return nil
	}
	var strict []string
	if c.fieldValidation != fieldValidationIgnore {
		for _, e := range schema.ScanBody(nil, body, true).Strict {
			if mt == mediaJSONPatch {
				e = "json patch " + e
			}
			strict = append(strict, e)
		}
	}
	value := patchedJSON(c.res, patched)
	var typeErr string
	switch {
	case c.res.CRD != "":
		strict = append(strict, schema.UnknownFieldErrors(schema.CoerceCustomResource(s, patched, c.fieldValidation != fieldValidationIgnore))...)
	case mt == mediaStrategic:
		// Directives the merge left in place are unknown fields there too.
		value = smpQuoted
		typeErr = schema.ConvertError(s, patched)
		strict = append(strict, schema.ScanBody(s, []byte(patchedJSON(c.res, patched)), false).Strict...)
	default:
		rep := schema.ScanBody(s, []byte(value), false)
		typeErr = rep.TypeErr
		strict = append(strict, rep.Strict...)
	}
	if typeErr != "" || (len(strict) > 0 && c.fieldValidation == fieldValidationStrict) {
		msg := typeErr
		if msg == "" {
			msg = schema.StrictDecodingError(strict)
		}
		return errInvalid("", "", "", []fielderr.Error{{Type: "FieldValueInvalid", Field: "patch", Value: value, Detail: msg}})
	}
	if c.res.CRD == "" {
		schema.Prune(s, patched, false, true)
	}
	if c.fieldValidation == fieldValidationWarn {
		for _, e := range strict {
			c.warn(e)
		}
	}
	return nil
}

// patchedJSON is the patched object as the real server quotes it in
// errors: a custom resource with every object's fields by name; a
// built-in kind with its top-level fields by name and its metadata in
// ObjectMeta's order (a patch re-encodes what it touches, not the rest).
func patchedJSON(res *resource, o obj) string {
	if res.CRD != "" {
		raw, _ := json.Marshal(o)
		return string(raw)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range unstructured.SortedKeys(o) {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, k)
		b.WriteByte(':')
		if m, ok := o[k].(obj); ok && k == "metadata" {
			writeMeta(&b, m)
		} else {
			writeJSONValue(&b, o[k])
		}
	}
	b.WriteByte('}')
	return b.String()
}

// checkApplyConfig checks an apply configuration as the real server's
// conversion to a typed object does: an unknown field or a type mismatch
// is a 500, whatever ?fieldValidation= says.
func (c *call) checkApplyConfig(config obj) *kube.StatusError {
	s := c.res.Schema
	if s == nil {
		return nil
	}
	errs := schema.ApplyTypeErrors(s, config, "", true)
	if len(errs) == 0 {
		return nil
	}
	msg := errs[0]
	if len(errs) > 1 {
		msg = "errors:\n  " + strings.Join(errs, "\n  ")
	}
	meta := unstructured.Metadata(config)
	gvk := c.res.Group + "/" + c.res.Version + ", Kind=" + c.res.Kind
	return statusError(http.StatusInternalServerError, "", fmt.Sprintf("failed to create typed patch object (%s/%s; %s): %s",
		unstructured.String(meta, "namespace"), unstructured.String(meta, "name"), gvk, msg), nil)
}
