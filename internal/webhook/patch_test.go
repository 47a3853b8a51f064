// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"encoding/json"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/internal/webhook"
)

func TestWebhookMutationPatch(t *testing.T) {
	tests := []struct {
		name string
		// original is what the API server sent; before its typed view;
		// after the typed view once changed; want original with the change.
		original, before, after, want string
	}{
		{"no change keeps undeclared fields",
			`{"metadata":{"name":"a","managedFields":[{"x":1}]},"spec":{"size":1,"extra":true}}`,
			`{"metadata":{"name":"a"},"spec":{"size":1}}`,
			`{"metadata":{"name":"a"},"spec":{"size":1}}`,
			`{"metadata":{"name":"a","managedFields":[{"x":1}]},"spec":{"size":1,"extra":true}}`},
		{"change beside undeclared fields",
			`{"spec":{"size":1,"extra":true},"status":{"x":1}}`,
			`{"spec":{"size":1}}`,
			`{"spec":{"size":3}}`,
			`{"spec":{"size":3,"extra":true},"status":{"x":1}}`},
		{"zero value of the typed view, unchanged, is not added",
			`{"metadata":{"name":"a"}}`,
			`{"metadata":{"name":"a"},"spec":{"size":0,"color":""}}`,
			`{"metadata":{"name":"a","labels":{"l":"1"}},"spec":{"size":0,"color":""}}`,
			`{"metadata":{"name":"a","labels":{"l":"1"}}}`},
		{"zero value of the typed view, changed, is added whole",
			`{"metadata":{"name":"a"}}`,
			`{"metadata":{"name":"a"},"spec":{"size":0,"color":""}}`,
			`{"metadata":{"name":"a"},"spec":{"size":2,"color":""}}`,
			`{"metadata":{"name":"a"},"spec":{"size":2,"color":""}}`},
		{"removal",
			`{"metadata":{"name":"a","annotations":{"x":"1","y":"2"}},"other":1}`,
			`{"metadata":{"name":"a","annotations":{"x":"1","y":"2"}}}`,
			`{"metadata":{"name":"a","annotations":{"y":"2"}}}`,
			`{"metadata":{"name":"a","annotations":{"y":"2"}},"other":1}`},
		{"array elements changed in place keep undeclared fields",
			`{"containers":[{"name":"a","image":"x","resources":{"cpu":1}},{"name":"b","resources":{"cpu":2}}]}`,
			`{"containers":[{"name":"a","image":"x"},{"name":"b","image":""}]}`,
			`{"containers":[{"name":"a","image":"x"},{"name":"b","image":"default"}]}`,
			`{"containers":[{"name":"a","image":"x","resources":{"cpu":1}},{"name":"b","resources":{"cpu":2},"image":"default"}]}`},
		{"array element appended",
			`{"list":[{"n":1,"u":true}]}`,
			`{"list":[{"n":1}]}`,
			`{"list":[{"n":1},{"n":2}]}`,
			`{"list":[{"n":1,"u":true},{"n":2}]}`},
		{"array element removed, the rest moved",
			`{"list":[{"n":1,"u":1},{"n":2,"u":2},{"n":3,"u":3}]}`,
			`{"list":[{"n":1},{"n":2},{"n":3}]}`,
			`{"list":[{"n":1},{"n":3}]}`,
			`{"list":[{"n":1,"u":1},{"n":3,"u":3}]}`},
		{"array reordered",
			`{"list":[{"n":1,"u":1},{"n":2,"u":2}]}`,
			`{"list":[{"n":1},{"n":2}]}`,
			`{"list":[{"n":2},{"n":1}]}`,
			`{"list":[{"n":2,"u":2},{"n":1,"u":1}]}`},
		{"type change",
			`{"spec":{"a":{"b":1,"c":2}}}`,
			`{"spec":{"a":{"b":1}}}`,
			`{"spec":{"a":"flat"}}`,
			`{"spec":{"a":"flat"}}`},
		{"big numbers stay exact",
			`{"n":12345678901234567890,"m":1}`,
			`{"n":12345678901234567890,"m":1}`,
			`{"n":12345678901234567890,"m":2}`,
			`{"n":12345678901234567890,"m":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, err := webhook.MutationPatch([]byte(tt.original), []byte(tt.before), []byte(tt.after))
			if err != nil {
				t.Fatalf("MutationPatch() error: %v", err)
			}
			var original, want any
			mustUnmarshal(t, tt.original, &original)
			mustUnmarshal(t, tt.want, &want)
			got, err := jsonpatch.ApplyValue(original, ops)
			if err != nil {
				t.Fatalf("ApplyValue(original, %v) error: %v", ops, err)
			}
			if !jsonpatch.Equal(got, want) {
				gotJSON, _ := json.Marshal(got)
				opsJSON, _ := json.Marshal(ops)
				t.Errorf("original patched with %s = %s, want %s", opsJSON, gotJSON, tt.want)
			}
		})
	}
	if _, err := webhook.MutationPatch([]byte(`{`), []byte(`{}`), []byte(`{}`)); err == nil {
		t.Errorf("MutationPatch(bad JSON) = nil error, want one")
	}
}

func mustUnmarshal(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("json.Unmarshal(%s) error: %v", s, err)
	}
}
