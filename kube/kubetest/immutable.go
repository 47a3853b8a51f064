// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"reflect"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// immutableFields are the fields of a kind that `immutable: true` freezes,
// in the order the real server reports them after `immutable` itself.
var immutableFields = map[string][]string{
	"configmaps": {"data", "binaryData"},
	"secrets":    {"data"},
}

// validateImmutable refuses, as the real server does, an update of a
// ConfigMap or Secret that was immutable and changes its content or its
// immutability, and an update of a Secret's type.
func validateImmutable(res *resource, next, old obj) *kube.StatusError {
	fields, ok := immutableFields[res.Plural]
	if res.Group != "" || !ok {
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
	if res.Plural == "secrets" && unstructured.String(next, "type") != unstructured.String(old, "type") {
		errs = append([]fielderr.Error{{Type: "FieldValueInvalid", Field: "type", Value: unstructured.String(next, "type"), Detail: "field is immutable"}}, errs...)
	}
	if len(errs) == 0 {
		return nil
	}
	return errInvalid(res.kindGroup(), res.Kind, unstructured.String(unstructured.Metadata(next), "name"), errs)
}

// emptyAsNil treats an empty map as absent, as the server's typed objects do.
func emptyAsNil(v any) any {
	if m, ok := v.(obj); ok && len(m) == 0 {
		return nil
	}
	return v
}
