// SPDX-License-Identifier: Apache-2.0

package schema

import (
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
)

// AsOldest rewords the errors of ValidateCustomResource as 1.33 words
// them: a fraction in an integer of format int32 is one type error
// (`in body must be of type integer: "number"`, no format error), and an
// embedded resource without apiVersion or kind is a "Required value:
// must not be empty". Other errors are returned as they are.
func AsOldest(errs []fielderr.Error) []fielderr.Error {
	out := make([]fielderr.Error, 0, len(errs))
	for _, e := range errs {
		switch {
		case e.Field == "<nil>" && strings.HasPrefix(e.Detail, "Checked value must be of type integer with format int32 in "):
			continue // 1.33 checks the type alone
		case e.Type == "FieldValueTypeInvalid" && e.Detail == e.Field+` in body must be of type int32: "float64"`:
			e.Value, e.Detail = "number", e.Field+` in body must be of type integer: "number"`
		case e.Type == "FieldValueRequired" && e.Detail == "" && !strings.HasPrefix(e.Field, "metadata.") &&
			(strings.HasSuffix(e.Field, ".apiVersion") || strings.HasSuffix(e.Field, ".kind")):
			e.Detail = "must not be empty"
		}
		out = append(out, e)
	}
	return out
}
