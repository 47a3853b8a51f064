// SPDX-License-Identifier: Apache-2.0

package strategicmerge

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

func decodeJSONValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := unstructured.DecodeExact([]byte(s), &v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// valueAt is the value at a dotted path of fields and list indices
// ("spec.containers.0.env"); nil when there is none.
func valueAt(o obj, dotted string) any {
	var cur any = o
	for p := range strings.SplitSeq(dotted, ".") {
		switch t := cur.(type) {
		case obj:
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

// itemNames is the names of a list's objects, in order.
func itemNames(l []any) []any {
	out := make([]any, len(l))
	for i, v := range l {
		m, _ := v.(obj)
		out[i] = m["name"]
	}
	return out
}

func decodeJSONObject(t *testing.T, s string) obj {
	t.Helper()
	o, err := unstructured.DecodeObjectOrNull([]byte(s))
	if err == nil && o == nil {
		err = errors.New("the body is not a JSON object")
	}
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return o
}
