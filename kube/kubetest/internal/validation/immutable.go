// SPDX-License-Identifier: Apache-2.0

package validation

import (
	"reflect"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// immutableFields are the fields of a kind that `immutable: true` freezes,
// in the order the real server reports them after `immutable` itself.
var immutableFields = map[string][]string{
	"configmaps": {"data", "binaryData"},
	"secrets":    {"data"},
}

// Immutable returns what the real server refuses of next, the update of
// old, an object of the resource plural of group: a change of the content
// or the immutability of a ConfigMap or Secret that was immutable, and a
// change of a Secret's type. Nil for other resources.
func Immutable(group, plural string, next, old map[string]any) []fielderr.Error {
	fields, ok := immutableFields[plural]
	if group != "" || !ok {
		return nil
	}
	var errs []fielderr.Error
	frozen := "field is immutable when `immutable` is set"
	if old["immutable"] == true {
		if next["immutable"] != true {
			errs = append(errs, fielderr.Error{Type: "FieldValueForbidden", Field: "immutable", Detail: frozen})
		}
		for _, f := range fields {
			if !reflect.DeepEqual(emptyAsNil(old[f]), emptyAsNil(next[f])) {
				errs = append(errs, fielderr.Error{Type: "FieldValueForbidden", Field: f, Detail: frozen})
			}
		}
	}
	if plural == "secrets" && unstructured.String(next, "type") != unstructured.String(old, "type") {
		errs = append([]fielderr.Error{{Type: "FieldValueInvalid", Field: "type", Value: unstructured.String(next, "type"), Detail: "field is immutable"}}, errs...)
	}
	return errs
}

// emptyAsNil treats an empty map as absent, as the server's typed objects do.
func emptyAsNil(v any) any {
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return nil
	}
	return v
}
