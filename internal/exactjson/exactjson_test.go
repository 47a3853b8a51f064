// SPDX-License-Identifier: Apache-2.0

package exactjson

import (
	"encoding/json"
	"reflect"
	"testing"
)

type spec struct {
	Replicas int               `json:"replicas"`
	Selector map[string]string `json:"selector"`
	Kind     string
	Items    []item          `json:"items"`
	Raw      json.RawMessage `json:"raw"`
}

type item struct {
	Name string `json:"name"`
}

// TestUnmarshal: members whose key is not a field's name exactly are
// dropped, at every depth; the rest is json.Unmarshal's, duplicates
// included.
func TestUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want spec
	}{
		{`{"replicas":3,"Replicas":1000,"replicaſ":1000}`, spec{Replicas: 3}},
		{`{"Kind":"a","kind":"b","\u212Aind":"c"}`, spec{Kind: "a"}},
		{`{"items":[{"name":"a","Name":"b"},{"NAME":"c"}]}`, spec{Items: []item{{Name: "a"}, {}}}},
		{`{"selector":{"A":"1"},"selector":{"a":"2"}}`, spec{Selector: map[string]string{"A": "1", "a": "2"}}},
		{`{"replicas":1,"replicas":2}`, spec{Replicas: 2}},
		{`{"raw":{"Name":1}}`, spec{Raw: json.RawMessage(`{"Name":1}`)}},
	} {
		var got spec
		if err := Unmarshal([]byte(tc.in), &got); err != nil {
			t.Fatalf("Unmarshal(%s) error: %v", tc.in, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Unmarshal(%s) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	if err := Unmarshal([]byte(`{"replicas":"x"}`), new(spec)); err == nil {
		t.Error(`Unmarshal({"replicas":"x"}) = nil error, want json.Unmarshal's`)
	}
}
