// SPDX-License-Identifier: Apache-2.0

package crd_test

import (
	"encoding/json"
	"fmt"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/crd"
)

// Widget is a custom kind: a struct like any kube object, with crd tags
// for what its Go type cannot say.
type Widget struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            WidgetSpec   `json:"spec"`
	Status          WidgetStatus `json:"status,omitzero"`
}

type WidgetSpec struct {
	Size  int32            `json:"size" crd:"minimum=1,maximum=10,printColumn=Size"`
	Color string           `json:"color,omitempty" crd:"enum=red;green,default=red"`
	Port  kube.IntOrString `json:"port,omitzero"`
}

type WidgetStatus struct {
	Conditions []kube.Condition `json:"conditions,omitempty"`
}

func (*Widget) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
}

func ExampleFor() {
	def, err := crd.For(&Widget{}, crd.Options{ShortNames: []string{"wd"}})
	if err != nil {
		panic(err)
	}
	v := def.Spec.Versions[0]
	fmt.Println(def.Name, def.Spec.Names.Plural, def.Spec.Scope, v.Name, v.Subresources.Status != nil)
	spec, _ := json.MarshalIndent(v.Schema.OpenAPIV3Schema.Properties["spec"], "", "  ")
	fmt.Println(string(spec))
	for _, c := range v.AdditionalPrinterColumns {
		fmt.Println(c.Name, c.Type, c.JSONPath)
	}
	// Output:
	// widgets.example.com widgets Namespaced v1 true
	// {
	//   "type": "object",
	//   "properties": {
	//     "color": {
	//       "type": "string",
	//       "default": "red",
	//       "enum": [
	//         "red",
	//         "green"
	//       ]
	//     },
	//     "port": {
	//       "anyOf": [
	//         {
	//           "type": "integer"
	//         },
	//         {
	//           "type": "string"
	//         }
	//       ],
	//       "x-kubernetes-int-or-string": true
	//     },
	//     "size": {
	//       "type": "integer",
	//       "format": "int32",
	//       "maximum": 10,
	//       "minimum": 1
	//     }
	//   },
	//   "required": [
	//     "size"
	//   ]
	// }
	// Size integer .spec.size
	// Age date .metadata.creationTimestamp
}
