// SPDX-License-Identifier: Apache-2.0

// Package fieldvalidation is the decoding half of schema validation, as
// kube-apiserver 1.36 does it before anything else in a write: type
// errors of built-in kinds (the Go decoder's message), unknown and
// duplicate fields reported by ?fieldValidation= ([Strict]: refused;
// [Warn], the default: a warning each; [Ignore]: nothing), and the
// pruning of unknown fields. The schema validation of custom resources
// (422) is in internal/schema. [Mode], [PatchError] and
// [ApplyConfigError] are the real server's errors; the server writes the
// warnings as Warning headers.
//
// Guarantees:
//   - A check changes the object it is given as the real decoding does
//     (unknown fields pruned; a custom resource also defaulted) and
//     nothing else; it keeps nothing.
//   - Warnings come in the order the real server writes them: duplicates
//     in the body first.
package fieldvalidation

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"unicode"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

type obj = map[string]any

// The values of ?fieldValidation=.
const (
	Ignore = "Ignore"
	Warn   = "Warn"
	Strict = "Strict"
)

// Kind is what a check needs to know of the kind written.
type Kind struct {
	// Schema is the kind's compiled schema; nil means schemaless, and
	// nothing is checked.
	Schema *schema.Schema
	// Custom says the kind is a custom resource.
	Custom bool
	// SkipEmbedded names no embedded struct in a type error's field path
	// (livenessProbe.httpGet.port, not livenessProbe.ProbeHandler.httpGet.port),
	// as 1.33's build does.
	SkipEmbedded bool
}

// Body checks a create or update body o (parsed from body) against the
// kind's schema under mode and prunes its unknown fields. typeErr is a
// built-in kind's type error, or with Strict the unknown and duplicate
// fields (the server answers 400 "cannot be handled as"); otherwise
// warnings are those to write with Warn.
func Body(k Kind, mode string, body []byte, o obj) (warnings []string, typeErr string) {
	if k.Schema == nil {
		return nil, ""
	}
	var strict []string
	if !k.Custom {
		rep := schema.ScanBody(k.Schema, body, false)
		if rep.TypeErr != "" && k.SkipEmbedded {
			return nil, withoutEmbedded(rep.TypeErr)
		}
		if rep.TypeErr != "" {
			return nil, rep.TypeErr
		}
		strict = rep.Strict
		schema.Prune(k.Schema, o, false, true)
	} else {
		track := mode != Ignore
		if track {
			strict = schema.ScanBody(nil, body, true).Strict
		}
		strict = append(strict, schema.UnknownFieldErrors(schema.CoerceCustomResource(k.Schema, o, track))...)
	}
	if len(strict) == 0 || mode == Ignore {
		return nil, ""
	}
	if mode == Strict {
		return nil, schema.StrictDecodingError(strict)
	}
	return strict, ""
}

// Patch says what a patch was.
type Patch struct {
	// JSONPatch and Strategic say the patch's type (else a merge patch).
	JSONPatch, Strategic bool
	// Body is the patch as sent.
	Body []byte
	// SMPQuoted is the patch as the strategic merge left it.
	SMPQuoted string
}

// Patched checks the object a patch produced, as the real server decodes
// it: a built-in kind's type error, and with Strict unknown or duplicate
// fields, are invalid: the server answers 422 on the field "patch" with
// value (the patched object, or for a strategic merge patch the patch as
// the merge left it) and detail. Duplicates in the patch body come first.
// Otherwise it prunes patched and returns the warnings to write.
func Patched(k Kind, mode string, p Patch, patched obj) (warnings []string, value, detail string) {
	if k.Schema == nil {
		return nil, "", ""
	}
	var strict []string
	if mode != Ignore {
		for _, e := range schema.ScanBody(nil, p.Body, true).Strict {
			if p.JSONPatch {
				e = "json patch " + e
			}
			strict = append(strict, e)
		}
	}
	value = Quote(k.Custom, patched)
	var typeErr string
	switch {
	case k.Custom:
		strict = append(strict, schema.UnknownFieldErrors(schema.CoerceCustomResource(k.Schema, patched, mode != Ignore))...)
	case p.Strategic:
		// Directives the merge left in place are unknown fields there too.
		value = p.SMPQuoted
		typeErr = schema.ConvertError(k.Schema, patched)
		strict = append(strict, schema.ScanBody(k.Schema, []byte(Quote(k.Custom, patched)), false).Strict...)
	default:
		rep := schema.ScanBody(k.Schema, []byte(value), false)
		typeErr = rep.TypeErr
		strict = append(strict, rep.Strict...)
	}
	if typeErr != "" || (len(strict) > 0 && mode == Strict) {
		msg := typeErr
		if msg == "" {
			msg = schema.StrictDecodingError(strict)
		}
		return nil, value, msg
	}
	if !k.Custom {
		schema.Prune(k.Schema, patched, false, true)
	}
	if mode == Warn {
		return strict, "", ""
	}
	return nil, "", ""
}

// Quote is the patched object o as the real server quotes it in
// errors: a custom resource with every object's fields by name; a
// built-in kind with its top-level fields by name and its metadata in
// ObjectMeta's order (a patch re-encodes what it touches, not the rest).
func Quote(custom bool, o obj) string {
	if custom {
		raw, _ := json.Marshal(o)
		return string(raw)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range unstructured.SortedKeys(o) {
		if i > 0 {
			b.WriteByte(',')
		}
		encode.String(&b, k)
		b.WriteByte(':')
		if m, ok := o[k].(obj); ok && k == "metadata" {
			encode.Meta(&b, m)
		} else {
			encode.Value(&b, o[k])
		}
	}
	b.WriteByte('}')
	return b.String()
}

// ApplyConfig checks an apply configuration as the real server's
// conversion to a typed object does, whatever ?fieldValidation= says: the
// message of the 500 an unknown field or a type mismatch is answered
// with, empty when there is none.
func ApplyConfig(k Kind, config obj) string {
	if k.Schema == nil {
		return ""
	}
	errs := schema.ApplyTypeErrors(k.Schema, config, "", true)
	switch len(errs) {
	case 0:
		return ""
	case 1:
		return errs[0]
	}
	return "errors:\n  " + strings.Join(errs, "\n  ")
}

// goStructField is the field a decode error names: "Go struct field
// HTTPGetAction.spec.containers.livenessProbe.ProbeHandler.httpGet.port".
var goStructField = regexp.MustCompile(`Go struct field (\w+)\.([\w.]+) of type`)

// withoutEmbedded drops from the field a decode error names the embedded
// structs (the elements Go names, which start upper case, where JSON's
// start lower case), as 1.33's build names them.
func withoutEmbedded(typeErr string) string {
	return goStructField.ReplaceAllStringFunc(typeErr, func(m string) string {
		sub := goStructField.FindStringSubmatch(m)
		var kept []string
		for _, e := range strings.Split(sub[2], ".") {
			if e == "" || !unicode.IsUpper(rune(e[0])) {
				kept = append(kept, e)
			}
		}
		return "Go struct field " + sub[1] + "." + strings.Join(kept, ".") + " of type"
	})
}
