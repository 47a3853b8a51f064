// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"testing"

	"github.com/kubeloop/kubeloop/internal/zerotest"
	"github.com/kubeloop/kubeloop/kube"
)

// TestZeroValues: every exported type's zero value works or returns an
// error, and a typed nil is treated as nil (see internal/zerotest).
func TestZeroValues(t *testing.T) {
	zerotest.Walk(t, ".", zerotest.Types{
		Values: []any{
			new(CustomResourceDefinition), new(Installer), new(SchemaOrBool),
		},
		TypedNils: []any{(*kube.Client)(nil)},
	})
}
