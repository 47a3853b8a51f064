// SPDX-License-Identifier: Apache-2.0

package fieldvalidation

import (
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// Mode reads the ?fieldValidation= value v of a write of verb (create,
// update, patch): absent, it is [Warn], the real server's default; an
// unknown value is its 422 on the verb's options.
func Mode(v, verb string) (string, *kube.StatusError) {
	switch v {
	case "":
		return Warn, nil
	case Ignore, Warn, Strict:
		return v, nil
	}
	options := map[string]string{"create": "CreateOptions", "update": "UpdateOptions"}[verb]
	if options == "" {
		options = "PatchOptions"
	}
	return "", apierr.Invalid("meta.k8s.io", options, "", []fielderr.Error{{Type: "FieldValueNotSupported",
		Field: "fieldValidation", Value: v, Detail: fielderr.NotSupportedDetail("", "Ignore", "Strict", "Warn")}})
}

// PatchError is the 422 of a patch [Patched] refused (value, detail).
func PatchError(value, detail string) *kube.StatusError {
	return apierr.Invalid("", "", "", []fielderr.Error{{Type: "FieldValueInvalid", Field: "patch", Value: value, Detail: detail}})
}

// ApplyConfigError is the 500 of an apply configuration of
// group/version, Kind=kind that [ApplyConfig] refused with msg.
func ApplyConfigError(config map[string]any, group, version, kind, msg string) *kube.StatusError {
	meta := unstructured.Metadata(config)
	gvk := group + "/" + version + ", Kind=" + kind
	return apierr.New(http.StatusInternalServerError, "", fmt.Sprintf("failed to create typed patch object (%s/%s; %s): %s",
		unstructured.String(meta, "namespace"), unstructured.String(meta, "name"), gvk, msg), nil)
}
