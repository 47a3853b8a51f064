// SPDX-License-Identifier: Apache-2.0

package yaml_test

import (
	"fmt"

	"github.com/kubeloop/kubeloop/internal/yaml"
)

func Example() {
	doc := []byte(`
clusters:
- name: kind   # as kubectl writes it
  cluster:
    server: https://127.0.0.1:6443
    insecure-skip-tls-verify: true
preferences: {}
`)
	root, err := yaml.ParseNode(doc)
	if err != nil {
		fmt.Println(err)
		return
	}
	cluster := root.Get("clusters").Items[0].Get("cluster")
	insecure := cluster.Get("insecure-skip-tls-verify")
	fmt.Println(cluster.Get("server").Text)
	fmt.Printf("%s (quoted %v) at line %d\n", insecure.Text, insecure.Quoted, insecure.Line)

	_, err = yaml.Parse([]byte("key: |\n  text\n"))
	fmt.Println(err)
	// Output:
	// https://127.0.0.1:6443
	// true (quoted false) at line 6
	// line 1, column 6: block scalars (|) are not supported: write the value on one line, quoted if needed
}
