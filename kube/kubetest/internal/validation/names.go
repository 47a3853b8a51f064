// SPDX-License-Identifier: Apache-2.0

package validation

import (
	"fmt"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file validates names, generateName, labels and annotation keys
// with the real server's messages (k8s.io/apimachinery/pkg/util/validation
// and pkg/api/validation/objectmeta.go).

const (
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1035LabelFmt     = "[a-z]([-a-z0-9]*[a-z0-9])?"
	qualifiedNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt       = "(" + qualifiedNameFmt + ")?"
)

// NameRule is how a kind's names are validated.
type NameRule uint8

const (
	NameSubdomain   NameRule = iota // DNS-1123 subdomain, most kinds
	NameLabel                       // DNS-1123 label: namespaces
	NameDNS1035                     // DNS-1035 label: services
	NamePathSegment                 // a path segment: RBAC's roles and bindings
)

// regexError is validation.RegexError.
func regexError(msg, format string, examples ...string) string {
	if len(examples) == 0 {
		return msg + " (regex used for validation is '" + format + "')"
	}
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + format + "')"
}

func maxLenError(n int) string { return fmt.Sprintf("must be no more than %d characters", n) }

func isAlnumLower(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
func isAlnum(c byte) bool      { return isAlnumLower(c) || c >= 'A' && c <= 'Z' }

// isLabelShape reports whether s is non-empty, made of bytes ok accepts
// plus '-', and starts (first) and ends with an accepted byte.
func isLabelShape(s string, ok, first func(byte) bool) bool {
	if s == "" || !first(s[0]) || !ok(s[len(s)-1]) {
		return false
	}
	for i := range len(s) {
		if !ok(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

func IsDNS1123Label(s string) []string {
	var errs []string
	if len(s) > 63 {
		errs = append(errs, maxLenError(63))
	}
	if !isLabelShape(s, isAlnumLower, isAlnumLower) {
		errs = append(errs, regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
			dns1123LabelFmt, "my-name", "123-abc"))
	}
	return errs
}

func IsDNS1123Subdomain(s string) []string {
	var errs []string
	if len(s) > 253 {
		errs = append(errs, maxLenError(253))
	}
	valid := s != ""
	for part := range strings.SplitSeq(s, ".") {
		valid = valid && isLabelShape(part, isAlnumLower, isAlnumLower)
	}
	if !valid {
		errs = append(errs, regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
			dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

func IsDNS1035Label(s string) []string {
	var errs []string
	if len(s) > 63 {
		errs = append(errs, maxLenError(63))
	}
	isLower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	if !isLabelShape(s, isAlnumLower, isLower) {
		errs = append(errs, regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
			dns1035LabelFmt, "my-name", "abc-123"))
	}
	return errs
}

// nameErrors validates a name (or, with prefix, a generateName, whose one
// trailing '-' is allowed) by rule.
func nameErrors(rule NameRule, name string, prefix bool) []string {
	if rule == NamePathSegment {
		return PathSegmentErrors(name, prefix)
	}
	if prefix && strings.HasSuffix(name, "-") {
		name = name[:len(name)-1] + "a"
	}
	switch rule {
	case NameLabel:
		return IsDNS1123Label(name)
	case NameDNS1035:
		return IsDNS1035Label(name)
	}
	return IsDNS1123Subdomain(name)
}

// PathSegmentErrors is path.ValidatePathSegmentName: a name (not a
// generateName) may not be "." or "..", and neither may contain "/" or
// "%", so that "system:controller" or "Admin_Role" are names.
func PathSegmentErrors(name string, prefix bool) []string {
	if !prefix && (name == "." || name == "..") {
		return []string{"may not be '" + name + "'"}
	}
	var errs []string
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(name, bad) {
			errs = append(errs, "may not contain '"+bad+"'")
		}
	}
	return errs
}

// isQualifiedNameShape checks the name part of a label key.
func isQualifiedNameShape(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// labelKeyErrors is validation.IsQualifiedName.
func labelKeyErrors(key string) []string {
	name := key
	var errs []string
	if i := strings.IndexByte(key, '/'); i >= 0 {
		prefix := key[:i]
		name = key[i+1:]
		if prefix == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			for _, m := range IsDNS1123Subdomain(prefix) {
				errs = append(errs, "prefix part "+m)
			}
		}
		if strings.Contains(name, "/") {
			return []string{regexError("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
				qualifiedNameFmt, "MyName", "my.name", "123-abc") + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}
		}
	}
	switch {
	case name == "":
		errs = append(errs, "name part must be non-empty")
	case len(name) > 63:
		errs = append(errs, "name part "+maxLenError(63))
	}
	if name != "" && !isQualifiedNameShape(name) {
		errs = append(errs, "name part "+regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
			qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// labelValueErrors is validation.IsValidLabelValue.
func labelValueErrors(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, maxLenError(63))
	}
	if v != "" && !isQualifiedNameShape(v) {
		errs = append(errs, regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
			labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

// Metadata checks the name, generateName, labels, annotation keys and
// owner references (worded as w says) of an object about to be written.
func Metadata(rule NameRule, meta map[string]any, name string, w OwnerRefWording) []fielderr.Error {
	var errs []fielderr.Error
	if gn := unstructured.String(meta, "generateName"); gn != "" {
		for _, m := range nameErrors(rule, gn, true) {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "metadata.generateName", Value: gn, Detail: m})
		}
	}
	if name == "" {
		errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: "metadata.name", Detail: "name or generateName is required"})
	} else {
		for _, m := range nameErrors(rule, name, false) {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "metadata.name", Value: name, Detail: m})
		}
	}
	labels, _ := unstructured.StringMap(meta, "labels")
	for _, k := range unstructured.SortedKeys(labels) {
		for _, m := range labelKeyErrors(k) {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "metadata.labels", Value: k, Detail: m})
		}
		for _, m := range labelValueErrors(labels[k]) {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "metadata.labels", Value: labels[k], Detail: m})
		}
	}
	annotations, _ := unstructured.StringMap(meta, "annotations")
	for _, k := range unstructured.SortedKeys(annotations) {
		for _, m := range labelKeyErrors(strings.ToLower(k)) {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "metadata.annotations", Value: k, Detail: m})
		}
	}
	return append(errs, OwnerReferences(meta, w)...)
}
