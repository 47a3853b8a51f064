// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"testing"

	"github.com/kubeloop/kubeloop/internal/zerotest"
)

func TestZeroValues(t *testing.T) {
	zerotest.Walk(t, ".", zerotest.Types{})
}
