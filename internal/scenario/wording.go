// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"regexp"
	"strings"
)

// This file holds how the minors word the answers that differ between
// them beyond one scenario: 1.33 prints a field error's value that is
// not a string, number or bool in Go syntax (v1.OwnerReference{...},
// map[string]interface {}{...}, a nil one as "null") where 1.34 and newer
// print JSON, and words some custom resource validation errors otherwise.

// pointerMask stands for a pointer's address in Go syntax, which differs
// on every answer: expectStatus masks the addresses of a message when the
// wanted one holds it.
const pointerMask = "(0x…)"

var pointerAddress = regexp.MustCompile(`\(0x[0-9a-f]+\)`)

// maskPointers replaces the addresses of pointers printed in Go syntax,
// "(*bool)(0xc000123)", by pointerMask.
func maskPointers(s string) string { return pointerAddress.ReplaceAllString(s, pointerMask) }

// goSyntaxValues reports whether the minor prints field errors' values
// that are not strings, numbers or bools in Go syntax (1.33).
func goSyntaxValues(minor int) bool { return minor <= minorOldest }

// crdWording is how a minor words the errors of custom resource
// validation that changed after 1.33.
type crdWording struct{ minor int }

// notInt32 is the error of a fraction in an integer of format int32:
// 1.33 checks the type alone, newer minors the format too.
func (w crdWording) notInt32(path string) []string {
	if w.minor <= minorOldest {
		return []string{path + `: Invalid value: "number": ` + path + ` in body must be of type integer: "number"`}
	}
	return []string{path + `: Invalid value: "float64": ` + path + ` in body must be of type int32: "float64"`,
		`<nil>: Invalid value: "": Checked value must be of type integer with format int32 in ` + path}
}

// duplicate is the error of an item repeated in a set or map list;
// goValue and jsonValue are the item as 1.33 and newer minors print it.
func (w crdWording) duplicate(path, goValue, jsonValue string) string {
	if goSyntaxValues(w.minor) {
		return path + ": Duplicate value: " + goValue
	}
	return path + ": Duplicate value: " + jsonValue
}

// embeddedRequired is the error of an embedded resource without
// apiVersion or kind: 1.33 adds a detail.
func (w crdWording) embeddedRequired(path string) string {
	if w.minor <= minorOldest {
		return path + ": Required value: must not be empty"
	}
	return path + ": Required value"
}

// maskedIfWanted returns msg with its pointer addresses masked when want
// holds pointerMask, else msg.
func maskedIfWanted(msg, want string) string {
	if strings.Contains(want, pointerMask) {
		return maskPointers(msg)
	}
	return msg
}
