// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkJSONPatchCopies sends a JSON patch of 17 copy operations, each
// copying a ConfigMap's data (5 KB at first) into itself, so that each
// doubles it: a 1 KB body that asks for 640 MiB. B/op is what the server
// allocates for it.
//
//	go test -run '^$' -bench JSONPatchCopies -benchtime 1x -benchmem ./kube/kubetest/
func BenchmarkJSONPatchCopies(b *testing.B) {
	s, c := benchServer(b, false)
	defer s.Close()
	c.mustDo(201, "POST", "/api/v1/namespaces/default/configmaps",
		fmt.Sprintf(`{"metadata":{"name":"big"},"data":{"k":%q}}`, strings.Repeat("x", 5000)))
	b.ReportAllocs()
	for range b.N {
		r := c.do("PATCH", "/api/v1/namespaces/default/configmaps/big", copyPatch(17), "Content-Type", ctJSON)
		b.ReportMetric(float64(r.code), "status")
	}
}

// copyPatch is a JSON patch of n operations that each copy /data into
// itself, doubling it.
func copyPatch(n int) string {
	ops := make([]string, n)
	for i := range ops {
		ops[i] = fmt.Sprintf(`{"op":"copy","from":"/data","path":"/data/c%02d"}`, i)
	}
	return "[" + strings.Join(ops, ",") + "]"
}
