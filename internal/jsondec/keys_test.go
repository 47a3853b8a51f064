// SPDX-License-Identifier: Apache-2.0

package jsondec_test

import (
	"reflect"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// replicaSpec names its fields as Kubernetes types do: a lower-case tag,
// and an untagged field matched by its Go name.
type replicaSpec struct {
	Replicas int               `json:"replicas"`
	Paused   bool              `json:"paused"`
	Selector map[string]string `json:"selector"`
	Kind     string
}

type replicaObject struct {
	Spec   replicaSpec `json:"spec"`
	Status struct {
		Ready int `json:"ready"`
	} `json:"status"`
}

// TestKeysMatchExactly: a key names a field only when it is the field's
// name exactly, as Kubernetes decodes (sigs.k8s.io/json); one that
// differs in case, or under Unicode folding (ſ folds to s, the Kelvin
// sign K to k), is an unknown key and dropped. Duplicate keys are decoded
// in turn into the field: the last scalar wins, maps merge.
func TestKeysMatchExactly(t *testing.T) {
	dec := jsondec.New(jsondec.Options{})
	for _, tc := range []struct {
		name, in string
		want     replicaSpec
	}{
		{"exact", `{"replicas":3,"paused":true,"Kind":"k"}`, replicaSpec{Replicas: 3, Paused: true, Kind: "k"}},
		{"capitalized", `{"Replicas":1000}`, replicaSpec{}},
		{"upper", `{"REPLICAS":1000,"PAUSED":true}`, replicaSpec{}},
		{"exact then capitalized", `{"replicas":3,"Replicas":1000}`, replicaSpec{Replicas: 3}},
		{"capitalized then exact", `{"Replicas":1000,"replicas":3}`, replicaSpec{Replicas: 3}},
		{"long s", `{"replicas":3,"replicaſ":1000}`, replicaSpec{Replicas: 3}},
		{"long s only", `{"replicaſ":1000}`, replicaSpec{}},
		{"untagged lower", `{"kind":"x"}`, replicaSpec{}},
		{"untagged Kelvin sign", `{"\u212Aind":"x"}`, replicaSpec{}},
		{"escaped exact", `{"replic\u0061s":3}`, replicaSpec{Replicas: 3}},
		{"duplicate: last wins", `{"replicas":3,"replicas":5}`, replicaSpec{Replicas: 5}},
		{"duplicate maps merge", `{"selector":{"a":"1"},"selector":{"b":"2"}}`, replicaSpec{Selector: map[string]string{"a": "1", "b": "2"}}},
		{"duplicate null clears", `{"selector":{"a":"1"},"selector":null}`, replicaSpec{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got replicaSpec
			if err := dec.Unmarshal([]byte(tc.in), &got); err != nil {
				t.Fatalf("Unmarshal(%s) error: %v", tc.in, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Unmarshal(%s) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

// TestForgedStatus: the tenant's document of issue #35 (keys a schema
// that keeps unknown fields lets through) decodes as the API server reads
// it: replicas 3, no status.
func TestForgedStatus(t *testing.T) {
	in := `{"spec":{"replicas":3,"replicaſ":1000},"statuſ":{"ready":1000},"Status":{"ready":1000},"ſpec":{"replicas":1000}}`
	var got replicaObject
	if err := jsondec.New(jsondec.Options{}).Unmarshal([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Replicas != 3 || got.Status.Ready != 0 {
		t.Errorf("Unmarshal(%s) = %+v, want replicas 3 and ready 0", in, got)
	}
}
