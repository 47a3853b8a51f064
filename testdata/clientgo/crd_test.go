// SPDX-License-Identifier: Apache-2.0

package clientgo

import (
	"context"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// TestCustomResourcesProtobuf creates a CRD with apiextensions' typed
// client in protobuf (schema forms included: additionalProperties as a
// schema and as false), reads it back in protobuf, then checks its custom
// resources stay JSON: the dynamic client works, protobuf alone is 406,
// and the metadata client's PartialObjectMetadataList is protobuf.
func TestCustomResourcesProtobuf(t *testing.T) {
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			k := newKit(t, srv)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cfg := rest.CopyConfig(srv.cfg)
			cfg.ContentType = protobufType
			ac, err := apiextensions.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			group := "p" + k.sfx + ".clientgo.example.com"
			crds := ac.ApiextensionsV1().CustomResourceDefinitions()
			crd, err := crds.Create(ctx, widgetCRD(group), metav1.CreateOptions{})
			if err = k.spoke(err, true); err != nil {
				t.Fatalf("create CRD: %v", err)
			}
			defer func() { _ = crds.Delete(context.Background(), crd.Name, metav1.DeleteOptions{}) }()
			props := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties
			if ap := props["labels"].AdditionalProperties; ap == nil || ap.Schema == nil || ap.Schema.Type != "string" {
				t.Errorf("labels.additionalProperties after create: %+v", ap)
			}
			if ap := props["closed"].AdditionalProperties; ap == nil || ap.Allows || ap.Schema != nil {
				t.Errorf("closed.additionalProperties after create: %+v", ap)
			}
			if _, err := crds.List(ctx, metav1.ListOptions{}); k.spoke(err, false) != nil {
				t.Errorf("list CRDs: %v", k.spoke(err, false))
			}
			gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "widgets"}
			dc, err := dynamic.NewForConfig(srv.cfg)
			if err != nil {
				t.Fatal(err)
			}
			w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": group + "/v1", "kind": "Widget",
				"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"color": "red"}}}
			err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
				_, err := dc.Resource(gvr).Namespace(k.ns).Create(ctx, w, metav1.CreateOptions{})
				return err == nil, nil // the real server serves a new CRD after a moment
			})
			if err != nil {
				t.Fatalf("create a custom resource: %v", err)
			}
			raw := k.cs.CoreV1().RESTClient().Get().AbsPath("/apis", group, "v1", "namespaces", k.ns, "widgets", "w").
				SetHeader("Accept", protobufType).Do(ctx)
			var code int
			raw.StatusCode(&code)
			if code != 406 {
				t.Errorf("a custom resource asked for in protobuf only: %d, want 406", code)
			}
			mc, err := metadata.NewForConfig(srv.cfg)
			if err != nil {
				t.Fatal(err)
			}
			list, err := mc.Resource(gvr).Namespace(k.ns).List(ctx, metav1.ListOptions{})
			if err = k.answeredProtobuf(err); err != nil || len(list.Items) != 1 {
				t.Errorf("metadata list of custom resources: %v %v", list, err)
			}
		})
	}
}

// widgetCRD is a namespaced CRD of Widgets in group.
func widgetCRD(group string) *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec":   {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"color": str}},
						"labels": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &str}},
						"closed": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: false}},
					}}}}},
		},
	}
}
