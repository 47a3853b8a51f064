// SPDX-License-Identifier: Apache-2.0

package controller

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
			new(AlreadyOwnedError), new(Builder), new(Change), new(ChangeType), new(Controller), new(EventHandlerFunc), new(PredicateFunc), new(PredicateFuncs), new(ReconcilerFunc), new(Result), new(Shards),
		},
		Except: map[string]string{
			"Shards.EnqueueOwner": "panics on a nil owner or one without a kind, at wiring time, as EnqueueOwner is documented to; given an owner it works on any Shards",
		},
		TypedNils: []any{(*kube.ConfigMap)(nil), (*kube.List[kube.ConfigMap])(nil), (*kube.Client)(nil), ReconcilerFunc(nil), PredicateFunc(nil), EventHandlerFunc(nil)},
	})
}
