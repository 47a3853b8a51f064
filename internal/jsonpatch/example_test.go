// SPDX-License-Identifier: Apache-2.0

package jsonpatch_test

import (
	"encoding/json"
	"fmt"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
)

// A webhook computes the JSON patch between the object it received and the
// one it wants; the server applies it.
func Example() {
	var before any
	_ = json.Unmarshal([]byte(`{"metadata":{"labels":{"app":"web"}},"spec":{"replicas":1}}`), &before)

	after := jsonpatch.DeepCopy(before).(map[string]any)
	after["metadata"].(map[string]any)["labels"].(map[string]any)["team/owner"] = "payments"
	after["spec"].(map[string]any)["replicas"] = 3

	ops := jsonpatch.Create(before, after)
	patch, _ := json.Marshal(ops)
	fmt.Println(string(patch))

	doc, _ := json.Marshal(before)
	out, err := jsonpatch.Apply(doc, patch)
	fmt.Println(string(out), err)

	merged, err := jsonpatch.Merge(out, []byte(`{"spec":{"paused":true,"replicas":null}}`))
	fmt.Println(string(merged), err)
	// Output:
	// [{"op":"add","path":"/metadata/labels/team~1owner","value":"payments"},{"op":"replace","path":"/spec/replicas","value":3}]
	// {"metadata":{"labels":{"app":"web","team/owner":"payments"}},"spec":{"replicas":3}} <nil>
	// {"metadata":{"labels":{"app":"web","team/owner":"payments"}},"spec":{"paused":true}} <nil>
}
