// SPDX-License-Identifier: Apache-2.0

package clientgo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/kube-openapi/pkg/util/proto"
)

// TestOpenAPISchemaProtobuf: client-go's DiscoveryClient.OpenAPISchema(),
// which asks /openapi/v2 in protobuf only, decodes gnostic's Document;
// kube-openapi builds its models from it (as kubectl explain
// --output=plaintext-openapiv2 does), with the Deployment's fields and,
// once published, a CRD's kind and its spec's properties.
func TestOpenAPISchemaProtobuf(t *testing.T) {
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			ac, err := apiextensions.NewForConfig(srv.cfg)
			if err != nil {
				t.Fatal(err)
			}
			group := fmt.Sprintf("o%d.clientgo.example.com", time.Now().UnixNano()%1e9)
			crds := ac.ApiextensionsV1().CustomResourceDefinitions()
			crd, err := crds.Create(ctx, widgetCRD(group), metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create CRD: %v", err)
			}
			defer func() { _ = crds.Delete(context.Background(), crd.Name, metav1.DeleteOptions{}) }()
			dc, err := discovery.NewDiscoveryClientForConfig(srv.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var doc *openapi_v2.Document
			var models proto.Models
			widget := reverseDomain(group) + ".v1.Widget"
			err = wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(context.Context) (bool, error) {
				if doc, err = dc.OpenAPISchema(); err != nil {
					return false, err
				}
				if models, err = proto.NewOpenAPIData(doc); err != nil {
					return false, err
				}
				return models.LookupModel(widget) != nil, nil
			})
			if err != nil {
				t.Fatalf("OpenAPISchema with %s: %v", widget, err)
			}
			if doc.Swagger != "2.0" || len(doc.GetDefinitions().GetAdditionalProperties()) < 100 {
				t.Errorf("document: swagger %q, %d definitions", doc.Swagger, len(doc.GetDefinitions().GetAdditionalProperties()))
			}
			deployment, ok := models.LookupModel("io.k8s.api.apps.v1.Deployment").(*proto.Kind)
			if !ok || deployment.Fields["spec"] == nil || deployment.Fields["status"] == nil {
				t.Errorf("Deployment model: %v", models.LookupModel("io.k8s.api.apps.v1.Deployment"))
			}
			kind, ok := models.LookupModel(widget).(*proto.Kind)
			if !ok || kind.Fields["spec"] == nil {
				t.Fatalf("%s model: %v", widget, models.LookupModel(widget))
			}
			if spec, ok := kind.Fields["spec"].(*proto.Kind); !ok || spec.Fields["color"] == nil {
				t.Errorf("%s spec: %v, want the color field", widget, kind.Fields["spec"])
			}
		})
	}
}

// reverseDomain turns "a.b.c" into "c.b.a", as CRD model names are.
func reverseDomain(group string) string {
	parts := strings.Split(group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".")
}
