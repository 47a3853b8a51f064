// SPDX-License-Identifier: Apache-2.0

// Package testjson holds the helpers that kubetest's tests and its
// subpackages' tests share to read decoded JSON. Only tests import it.
package testjson

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// Decode decodes s with exact numbers, as the server does, and fails t if
// it is not JSON.
func Decode(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := unstructured.DecodeExact([]byte(s), &v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// At is the value at a dotted path of fields and list indices
// ("spec.containers.0.env"); nil when there is none.
func At(o map[string]any, dotted string) any {
	var cur any = o
	for p := range strings.SplitSeq(dotted, ".") {
		switch t := cur.(type) {
		case map[string]any:
			cur = t[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i >= len(t) {
				return nil
			}
			cur = t[i]
		default:
			return nil
		}
	}
	return cur
}

// ItemNames is the names of a list's objects, in order.
func ItemNames(l []any) []any {
	out := make([]any, len(l))
	for i, v := range l {
		m, _ := v.(map[string]any)
		out[i] = m["name"]
	}
	return out
}
