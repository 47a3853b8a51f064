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

// GoString prints the reference as 1.33's field errors print a
// v1.OwnerReference (fielderr.Error.GoSyntax).
func (r ownerReference) GoString() string {
	ptr := func(b *bool) string {
		if b == nil {
			return "(*bool)(nil)"
		}
		return fmt.Sprintf("(*bool)(%p)", b)
	}
	return fmt.Sprintf(`v1.OwnerReference{APIVersion:%q, Kind:%q, Name:%q, UID:%q, Controller:%s, BlockOwnerDeletion:%s}`,
		r.APIVersion, r.Kind, r.Name, r.UID, ptr(r.Controller), ptr(r.BlockOwnerDeletion))
}

// ownerReferences is metadata.ownerReferences as a field error's value.
type ownerReferences []ownerReference

// GoString prints the list as 1.33 prints a []v1.OwnerReference.
func (rs ownerReferences) GoString() string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.GoString()
	}
	return "[]v1.OwnerReference{" + strings.Join(parts, ", ") + "}"
}

// bannedOwners are the kinds that may not own anything, by group/version
// and kind, with the name the real server gives them.
var bannedOwners = map[[2]string]string{{"v1", "Event"}: "/v1, Kind=Event"}

// OwnerRefWording is how a release words the errors of
// metadata.ownerReferences; the zero value is the newest's.
type OwnerRefWording uint8

const (
	// OwnerRefsByEntry (1.37) names the entry and calls an empty field a
	// Required value: metadata.ownerReferences[0].uid: Required value:
	// must not be empty; an apiVersion without a version "must be
	// <group>/<version> or <version>".
	OwnerRefsByEntry OwnerRefWording = iota
	// OwnerRefsByList (1.34 to 1.36) names the list:
	// metadata.ownerReferences.uid: Invalid value: "": must not be empty;
	// an apiVersion without a version "version must not be empty".
	OwnerRefsByList
	// OwnerRefsByListNamed (1.33) is OwnerRefsByList with the field's name
	// in the detail: "uid must not be empty".
	OwnerRefsByListNamed
)

// OwnerReferences checks metadata.ownerReferences as the real server does:
// apiVersion (with a version), kind, name and uid of each are required,
// Events may not own, and at most one reference is the controller; each
// error worded as w says. Several controllers are reported at
// metadata.ownerReferences whatever the wording.
func OwnerReferences(meta map[string]any, w OwnerRefWording) []fielderr.Error {
	list, _ := meta["ownerReferences"].([]any)
	const path = "metadata.ownerReferences"
	var errs []fielderr.Error
	refs := make(ownerReferences, 0, len(list))
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
	for i, ref := range refs {
		entry := path
		if w == OwnerRefsByEntry {
			entry = fmt.Sprintf("%s[%d]", path, i)
		}
		errs = append(errs, ownerRefFieldErrors(ref, entry, w)...)
		if banned, ok := bannedOwners[[2]string{ref.APIVersion, ref.Kind}]; ok {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: entry, Value: ref,
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

// ownerRefFieldErrors are the errors of ref's apiVersion, kind, name and
// uid, at entry, worded as w says.
func ownerRefFieldErrors(ref ownerReference, entry string, w OwnerRefWording) []fielderr.Error {
	var errs []fielderr.Error
	switch {
	case ref.APIVersion == "" && w == OwnerRefsByEntry:
		errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: entry + ".apiVersion", Detail: "must not be empty"})
	case version(ref.APIVersion) == "" && w == OwnerRefsByEntry:
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: entry + ".apiVersion", Value: ref.APIVersion,
			Detail: "must be <group>/<version> or <version>"})
	case version(ref.APIVersion) == "":
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: entry + ".apiVersion", Value: ref.APIVersion,
			Detail: "version must not be empty"})
	}
	for _, f := range []struct{ name, value string }{{"kind", ref.Kind}, {"name", ref.Name}, {"uid", ref.UID}} {
		switch {
		case f.value != "":
		case w == OwnerRefsByEntry:
			errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: entry + "." + f.name, Detail: "must not be empty"})
		case w == OwnerRefsByListNamed:
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: entry + "." + f.name, Value: "",
				Detail: f.name + " must not be empty"})
		default:
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: entry + "." + f.name, Value: "", Detail: "must not be empty"})
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
