// SPDX-License-Identifier: Apache-2.0

package csr

import (
	"fmt"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

type obj = map[string]any

// Final condition types: True only, never removed once there.
var finalTypes = []string{"Approved", "Denied", "Failed"}

// PrepareApproval returns the object a write of next to the approval
// subresource stores over old: next's metadata, old's spec and status
// but next's status.conditions, stamped at now (RFC 3339). The caller
// keeps the system metadata.
func PrepareApproval(next, old map[string]any, now string) map[string]any {
	out := unstructured.DeepCopy(old).(obj)
	out["metadata"] = next["metadata"]
	status := unstructured.Child(out, "status", true)
	if status == nil {
		status = obj{}
		out["status"] = status
	}
	if conds, ok := unstructured.Child(next, "status", false)["conditions"]; ok && conds != nil {
		status["conditions"] = unstructured.DeepCopy(conds)
	} else {
		delete(status, "conditions")
	}
	StampConditions(out, old, now)
	return out
}

// StampConditions sets in next's conditions a lastUpdateTime of now
// where none is set, and a lastTransitionTime where none is set: old's
// for a condition of the same type and status, else now.
func StampConditions(next, old map[string]any, now string) {
	oldConds := conditions(old)
	for _, c := range conditions(next) {
		if unstructured.String(c, "lastUpdateTime") == "" {
			c["lastUpdateTime"] = now
		}
		if unstructured.String(c, "lastTransitionTime") != "" {
			continue
		}
		c["lastTransitionTime"] = now
		for _, o := range oldConds {
			if o["type"] == c["type"] && o["status"] == c["status"] && unstructured.String(o, "lastTransitionTime") != "" {
				c["lastTransitionTime"] = o["lastTransitionTime"]
				break
			}
		}
	}
}

// ExclusiveWording is how a release words the error of conditions that
// hold both Approved and Denied; the zero value is the newest's.
type ExclusiveWording uint8

const (
	// ExclusiveUnion (1.37, declarative validation) refuses the union at
	// status.conditions: must specify at most one of the two.
	ExclusiveUnion ExclusiveWording = iota
	// ExclusiveAtList (1.34 to 1.36): status.conditions: Invalid value:
	// "Denied": Approved and Denied conditions are mutually exclusive.
	ExclusiveAtList
	// ExclusiveAtEntry (1.33) names the type of the second of the two:
	// status.conditions[1].type, its type as the value.
	ExclusiveAtEntry
)

// ValidateConditions returns the errors of next's status.conditions, and
// for an update (old not nil) the final conditions it removes; both
// Approved and Denied are refused worded as w says.
func ValidateConditions(next, old map[string]any, w ExclusiveWording) []fielderr.Error {
	var errs []fielderr.Error
	seen := map[string]bool{}
	var approved, denied bool
	for i, c := range conditions(next) {
		typ, status := unstructured.String(c, "type"), unstructured.String(c, "status")
		field := fmt.Sprintf("status.conditions[%d]", i)
		if typ == "" {
			errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: field + ".type"})
		}
		if w == ExclusiveAtEntry && (typ == "Approved" && denied || typ == "Denied" && approved) {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: field + ".type", Value: typ,
				Detail: "Approved and Denied conditions are mutually exclusive"})
		}
		approved, denied = approved || typ == "Approved", denied || typ == "Denied"
		switch {
		case isFinal(typ) && status != "True":
			errs = append(errs, fielderr.Error{Type: "FieldValueNotSupported", Field: field + ".status", Value: status,
				Detail: fielderr.NotSupportedDetail("True")})
		case !isFinal(typ) && status != "True" && status != "False" && status != "Unknown":
			errs = append(errs, fielderr.Error{Type: "FieldValueNotSupported", Field: field + ".status", Value: status,
				Detail: fielderr.NotSupportedDetail("False", "True", "Unknown")})
		}
		if seen[typ] {
			errs = append(errs, fielderr.Error{Type: "FieldValueDuplicate", Field: field + ".type", Value: typ})
		}
		seen[typ] = true
	}
	switch {
	case !approved || !denied || w == ExclusiveAtEntry:
	case w == ExclusiveAtList:
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "status.conditions", Value: "Denied",
			Detail: "Approved and Denied conditions are mutually exclusive"})
	default:
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "status.conditions",
			Value:  `{conditions[{"type": "Approved"}], conditions[{"type": "Denied"}]}`,
			Detail: "must specify at most one of: `conditions[{\"type\": \"Approved\"}]`, `conditions[{\"type\": \"Denied\"}]`"})
	}
	if old == nil {
		return errs
	}
	for _, typ := range finalTypes {
		if count(old, typ) > count(next, typ) {
			errs = append(errs, fielderr.Error{Type: "FieldValueForbidden", Field: "status.conditions",
				Detail: fmt.Sprintf("updates may not remove a condition of type %q", typ)})
		}
	}
	return errs
}

func isFinal(typ string) bool {
	for _, t := range finalTypes {
		if t == typ {
			return true
		}
	}
	return false
}

// conditions are the objects of o's status.conditions.
func conditions(o obj) []obj {
	list, _ := unstructured.Child(o, "status", false)["conditions"].([]any)
	out := make([]obj, 0, len(list))
	for _, v := range list {
		if c, ok := v.(obj); ok {
			out = append(out, c)
		}
	}
	return out
}

// count is how many conditions of type typ o has.
func count(o obj, typ string) int {
	n := 0
	for _, c := range conditions(o) {
		if c["type"] == typ {
			n++
		}
	}
	return n
}
