// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"reflect"
	"slices"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// TestItemsFieldAsFieldByName checks that itemsField finds the Items
// field reflect's FieldByName finds, on the list shapes a program may
// pass to List: kube.List, a list of its own, Items promoted from an
// embedded struct, two equally shallow (none), a shallower one winning,
// and none at all.
func TestItemsFieldAsFieldByName(t *testing.T) {
	type inner struct{ Items []kube.ConfigMap }
	type other struct{ Items []kube.Secret }
	type own struct {
		kube.TypeMeta
		kube.ListMeta
		Items []kube.ConfigMap
	}
	type promoted struct {
		kube.TypeMeta
		inner
	}
	type ambiguous struct {
		inner
		other
	}
	type shallower struct {
		ambiguous
		Items []kube.Secret
	}
	type deep struct{ promoted }
	type none struct{ kube.TypeMeta }
	for _, v := range []any{kube.List[kube.ConfigMap]{}, own{}, promoted{}, ambiguous{}, shallower{}, deep{}, none{}} {
		typ := reflect.TypeOf(v)
		f, ok := typ.FieldByName("Items")
		var want []int
		if ok {
			want = f.Index
		}
		if got := itemsField(typ); !slices.Equal(got, want) {
			t.Errorf("itemsField(%v) = %v, want %v (FieldByName)", typ, got, want)
		}
	}
}
