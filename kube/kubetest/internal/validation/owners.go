// SPDX-License-Identifier: Apache-2.0

package validation

import (
	"fmt"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// ownerReference is an entry of metadata.ownerReferences in the order and
// form the real server prints it in a field error's value.
type ownerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// bannedOwners are the kinds that may not own anything, by group/version
// and kind, with the name the real server gives them.
var bannedOwners = map[[2]string]string{{"v1", "Event"}: "/v1, Kind=Event"}

// OwnerReferences checks metadata.ownerReferences as the real server does:
// apiVersion (with a version), kind, name and uid of each are required,
// Events may not own, and at most one reference is the controller. Every
// error is reported at metadata.ownerReferences, without an index, as the
// real server reports them.
func OwnerReferences(meta map[string]any) []fielderr.Error {
	list, _ := meta["ownerReferences"].([]any)
	const path = "metadata.ownerReferences"
	var errs []fielderr.Error
	refs := make([]ownerReference, 0, len(list))
	for _, r := range list {
		m, _ := r.(map[string]any)
		ref := ownerReference{APIVersion: unstructured.String(m, "apiVersion"), Kind: unstructured.String(m, "kind"),
			Name: unstructured.String(m, "name"), UID: unstructured.String(m, "uid")}
		if b, ok := m["controller"].(bool); ok {
			ref.Controller = &b
		}
		if b, ok := m["blockOwnerDeletion"].(bool); ok {
			ref.BlockOwnerDeletion = &b
		}
		refs = append(refs, ref)
	}
	firstController := ""
	for _, ref := range refs {
		if version(ref.APIVersion) == "" {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: path + ".apiVersion", Value: ref.APIVersion,
				Detail: "version must not be empty"})
		}
		for _, f := range []struct{ name, value string }{{"kind", ref.Kind}, {"name", ref.Name}, {"uid", ref.UID}} {
			if f.value == "" {
				errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: path + "." + f.name, Value: "", Detail: "must not be empty"})
			}
		}
		if banned, ok := bannedOwners[[2]string{ref.APIVersion, ref.Kind}]; ok {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: path, Value: ref,
				Detail: banned + " is disallowed from being an owner"})
		}
		if ref.Controller != nil && *ref.Controller {
			if firstController == "" {
				firstController = ref.Kind + "/" + ref.Name
				continue
			}
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: path, Value: refs,
				Detail: fmt.Sprintf(`Only one reference can have Controller set to true. Found "true" in references for %s and %s`,
					firstController, ref.Kind+"/"+ref.Name)})
		}
	}
	return errs
}

// version is the version of an apiVersion, "" when it has none or is
// malformed (more than one slash).
func version(apiVersion string) string {
	switch strings.Count(apiVersion, "/") {
	case 0:
		return apiVersion
	case 1:
		_, v, _ := strings.Cut(apiVersion, "/")
		return v
	}
	return ""
}
