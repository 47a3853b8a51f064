// SPDX-License-Identifier: Apache-2.0

package clientgo

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
)

// TestMetadataClientProtobuf runs client-go's metadata client, which asks
// for PartialObjectMetadata in protobuf first: list, get and watch of
// ConfigMaps must be answered in protobuf.
func TestMetadataClientProtobuf(t *testing.T) {
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			k := newKit(t, srv)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			name := k.create(ctx, t, fixtureOf(t, "ConfigMap"))
			mc, err := metadata.NewForConfig(srv.cfg)
			if err != nil {
				t.Fatal(err)
			}
			cms := mc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(k.ns)
			list, err := cms.List(ctx, metav1.ListOptions{})
			if err = k.answeredProtobuf(err); err != nil || len(list.Items) == 0 || list.Items[0].Name != name {
				t.Errorf("metadata list: %v %v", list, err)
			}
			got, err := cms.Get(ctx, name, metav1.GetOptions{})
			if err = k.answeredProtobuf(err); err != nil || got.Name != name {
				t.Errorf("metadata get: %v %v", got, err)
			}
			w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
			if err == nil {
				defer w.Stop()
				if ex := k.srv.wire.lastExchange(); !strings.HasPrefix(ex.answered, protobufType+";stream=watch") {
					err = fmt.Errorf("watch answered %q", ex.answered)
				}
			}
			if err != nil {
				t.Fatalf("metadata watch: %v", err)
			}
			if _, err := k.cs.CoreV1().ConfigMaps(k.ns).Patch(ctx, name, "application/merge-patch+json",
				[]byte(`{"metadata":{"labels":{"a":"b"}}}`), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := awaitModified(w, name); err != nil {
				t.Errorf("metadata watch: %v", err)
			}
		})
	}
}

// answeredProtobuf checks the latest exchange went well in protobuf.
func (k *kit) answeredProtobuf(err error) error {
	if err != nil {
		return err
	}
	if ex := k.srv.wire.lastExchange(); ex.answered != protobufType {
		return fmt.Errorf("%s %s answered %q", ex.method, ex.path, ex.answered)
	}
	return nil
}
