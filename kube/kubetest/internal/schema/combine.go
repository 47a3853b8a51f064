// SPDX-License-Identifier: Apache-2.0

package schema

import (
	"fmt"
	"strconv"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
)

// This file validates a value against the combinators of a CRD schema
// (allOf, anyOf, oneOf, not) with the real validator's words.

// combinators checks allOf, anyOf, oneOf and not. Their errors name no
// field, as the real server reports them ("<nil>").
func (v *schemaValidator) combinators(s *Schema, x any, path vpath) {
	quoted := func() string { return strconv.Quote(path.String()) }
	if len(s.AnyOf) > 0 {
		var best []fielderr.Error
		ok := false
		for _, alt := range s.AnyOf {
			errs := validateValue(alt, x, path)
			if len(errs) == 0 {
				ok = true
				break
			}
			if best == nil {
				best = errs
			}
		}
		if !ok {
			v.add("FieldValueInvalid", "<nil>", "", quoted()+" must validate at least one schema (anyOf)")
			v.merge(best)
		}
	}
	if len(s.OneOf) > 0 {
		valid := 0
		var best []fielderr.Error
		for _, alt := range s.OneOf {
			errs := validateValue(alt, x, path)
			if len(errs) == 0 {
				valid++
			} else if best == nil && valid == 0 {
				best = errs
			}
		}
		switch {
		case valid == 0:
			v.add("FieldValueInvalid", "<nil>", "", quoted()+" must validate one and only one schema (oneOf). Found none valid")
			v.merge(best)
		case valid > 1:
			v.add("FieldValueInvalid", "<nil>", "", fmt.Sprintf("%s must validate one and only one schema (oneOf). Found %d valid alternatives", quoted(), valid))
		}
	}
	if len(s.AllOf) > 0 {
		valid := 0
		for _, alt := range s.AllOf {
			errs := validateValue(alt, x, path)
			if len(errs) == 0 {
				valid++
			}
			v.merge(errs)
		}
		if valid != len(s.AllOf) {
			extra := ""
			if valid == 0 {
				extra = ". None validated"
			}
			v.add("FieldValueInvalid", "<nil>", "", quoted()+" must validate all the schemas (allOf)"+extra)
		}
	}
	if s.Not != nil && len(validateValue(s.Not, x, path)) == 0 {
		v.add("FieldValueInvalid", "<nil>", "", quoted()+" must not validate the schema (not)")
	}
}

// validateValue validates x against s alone, for the combinators.
func validateValue(s *Schema, x any, path vpath) []fielderr.Error {
	sub := &schemaValidator{} // fields relative: the caller's add them as they are
	sub.value(s, x, path, nil, false)
	return sub.errs
}

// merge adds the errors of a sub-validation (fields relative to the
// value) below v's root.
func (v *schemaValidator) merge(errs []fielderr.Error) {
	for _, e := range errs {
		v.add(e.Type, e.Field, e.Value, e.Detail)
	}
}
