// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"fmt"

	"github.com/kubeloop/kubeloop/kube"
)

// ParseKey reads back the "namespace/name" (or "name") of [kube.Key.String],
// the form client-go's cache keys and a work queue's keys take.
func ExampleParseKey() {
	for _, s := range []string{"default/web", "node-1"} {
		k := kube.ParseKey(s)
		fmt.Printf("%q %q %s\n", k.Namespace, k.Name, k)
	}
	// Output:
	// "default" "web" default/web
	// "" "node-1" node-1
}
