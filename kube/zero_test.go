// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"testing"

	"github.com/kubeloop/kubeloop/internal/zerotest"
)

// TestZeroValues: every exported type's zero value works or returns an
// error, and a typed nil is treated as nil (see internal/zerotest).
func TestZeroValues(t *testing.T) {
	zerotest.Walk(t, ".", zerotest.Types{
		Values: []any{
			new(Client), new(Config), new(ConfigMap), new(Continue), new(DeleteAllOfOptions), new(DeleteOptions), new(DryRunFlag), new(Event), new(Eviction),
			new(ExecConfig), new(ExecEnvVar), new(FieldError), new(FieldOwner), new(FieldRequirement),
			new(FieldSelector), new(FieldValidation), new(GracePeriodSeconds), new(GroupVersionKind), new(HasLabels), new(HashRange),
			new(InNamespace), new(IntOrString), new(Key), new(LabelSelector), new(Lease), new(Limit),
			new(List[ConfigMap]), new(List[Unstructured]), new(ListMeta), new(ListOptions), new(MatchingFields),
			new(MatchingFieldsSelector), new(MatchingLabels), new(MatchingLabelsSelector), new(MicroTime),
			new(Namespace), new(NoKindMatchError), new(NotKubernetesError), new(ObjectMeta), new(OwnerReference),
			new(Patch), new(Preconditions), new(PropagationPolicy), new(Requirement), new(Scale), new(Secret), new(Selector), new(ShardField),
			new(ShardSelector), new(StatusError), new(StatusWriter), new(SubResourceClient), new(TLSConfig),
			new(Time), new(TypeMeta), new(UndeclaredFieldsError), new(Unstructured), new(WatchEvent), new(Watcher), new(WriteFlag),
			new(WriteOptions),
		},
		TypedNils: []any{(*ConfigMap)(nil), (*List[ConfigMap])(nil)},
		Except: map[string]string{
			"List.Item": "an index out of range panics, as a slice's does",
			// encoding/json and the client call UnmarshalJSON on a value
			// they allocated, never on a nil pointer.
			"Time.UnmarshalJSON":         "called by a decoder on its own value",
			"MicroTime.UnmarshalJSON":    "called by a decoder on its own value",
			"Unstructured.UnmarshalJSON": "called by a decoder on its own value",
		},
	})
}
