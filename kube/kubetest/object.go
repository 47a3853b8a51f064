// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"strconv"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file holds objects as the server sees them: schemaless JSON decoded
// into map[string]any (numbers as int64 or float64: internal/unstructured), encoded
// back in the real server's field order (internal/encode), and the bits of
// metadata the server generates (internal/strategy).

// obj is a decoded object. Every obj is owned by one request: decode makes
// a fresh one from a record's bytes.
type obj = map[string]any

// decodeObject decodes raw into a fresh map.
func decodeObject(raw []byte) (obj, error) {
	o, err := unstructured.DecodeObjectOrNull(raw)
	if err == nil && o == nil {
		err = fmt.Errorf("the body is not a JSON object")
	}
	return o, err
}

// mustDecode decodes bytes the server itself encoded.
func mustDecode(raw []byte) obj {
	o, err := decodeObject(raw)
	if err != nil {
		panic("kubetest: decode stored object: " + err.Error())
	}
	return o
}

// stringList returns m[k] as a list of strings (finalizers).
func stringList(m obj, k string) []string {
	in, _ := m[k].([]any)
	out := make([]string, 0, len(in))
	for _, v := range in {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// formatRV is the wire form of a resourceVersion.
func formatRV(rv uint64) string { return strconv.FormatUint(rv, 10) }

// nowString is the current time with the API's second precision, read from
// time.Now so that a synctest bubble's clock applies.
func nowString() string { return time.Now().UTC().Truncate(time.Second).Format(time.RFC3339) }
