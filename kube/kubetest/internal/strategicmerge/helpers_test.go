// SPDX-License-Identifier: Apache-2.0

package strategicmerge

import (
	"errors"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

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
