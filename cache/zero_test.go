// SPDX-License-Identifier: Apache-2.0

package cache

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
			new(Cache), new(Cluster), new(HandlerFuncs[*kube.ConfigMap]), new(Informer[kube.ConfigMap]), new(NotAllowedError), new(NotSyncedError), new(ReadOnly[kube.ConfigMap]), new(Registration),
		},
		TypedNils: []any{(*kube.ConfigMap)(nil), (*kube.List[kube.ConfigMap])(nil), (*Registration)(nil)},
	})
}
