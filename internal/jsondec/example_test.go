// SPDX-License-Identifier: Apache-2.0

package jsondec_test

import (
	"fmt"

	"github.com/kubeloop/kubeloop/internal/jsondec"
	"github.com/kubeloop/kubeloop/kube"
)

func Example() {
	dec := jsondec.New(jsondec.Options{}) // once: it keeps the plans
	var cm kube.ConfigMap
	err := dec.Unmarshal([]byte(`{"metadata":{"name":"a","labels":{"app":"x"}},"data":{"k":"v"}}`), &cm)
	fmt.Println(cm.Name, cm.Labels["app"], cm.Data["k"], err)

	err = dec.Unmarshal([]byte(`{"metadata":{"labels":{"app":42}}}`), &cm)
	fmt.Println(err)
	// Output:
	// a x v <nil>
	// cannot decode a JSON number at .metadata.labels.app (offset 29) into string
}
