// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// TestValidatingWebhook registers kubeloop's webhook server with the real
// kube-apiserver and sees a create denied by it.
func TestValidatingWebhook(t *testing.T) {
	c, ctx := adminClient(t)
	const path = "/validate-configmaps"
	url, caBundle := startWebhooks(t, map[string]http.Handler{
		path: webhook.ValidatingFor[kube.ConfigMap](webhook.ValidatorFuncs[kube.ConfigMap]{
			Create: func(ctx context.Context, cm *kube.ConfigMap) (webhook.Warnings, error) {
				if cm.Data["color"] == "red" {
					return nil, errors.New(`data.color: "red" is reserved`)
				}
				return nil, nil
			},
		}),
	})
	name := "kubeloop-integration-" + randomName()
	vwc := webhookConfiguration("ValidatingWebhookConfiguration", name, url+path, caBundle, map[string]any{
		"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"},
		"resources": []any{"configmaps"}, "scope": "Namespaced",
	})
	vwc.Content["webhooks"].([]any)[0].(map[string]any)["objectSelector"] = map[string]any{"matchLabels": map[string]any{"kubeloop.test/webhook": name}}
	if err := c.Create(ctx, vwc); err != nil {
		t.Fatal(err)
	}
	defer c.Delete(context.Background(), vwc)

	red := func(n string) *kube.ConfigMap {
		return &kube.ConfigMap{
			ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: n, Labels: map[string]string{"kubeloop.test/webhook": name}},
			Data:       map[string]string{"color": "red"},
		}
	}
	// The configuration takes a moment to reach the admission chain.
	var denied error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		cm := red("paint-" + randomName())
		if denied = c.Create(ctx, cm); denied != nil {
			break
		}
		c.Delete(ctx, cm)
	}
	if !kube.IsForbidden(denied) || !strings.Contains(denied.Error(), `denied the request: data.color: "red" is reserved`) {
		t.Fatalf("create of a red ConfigMap = %v, want Forbidden by the webhook", denied)
	}
	blue := red("sky-" + randomName())
	blue.Data["color"] = "blue"
	if err := c.Create(ctx, blue); err != nil {
		t.Errorf("create of a blue ConfigMap = %v, want it admitted", err)
	}
	c.Delete(ctx, blue)
}

// webhookConfiguration is a Validating- or MutatingWebhookConfiguration
// (kind) of one webhook at url, for the requests rule matches, failing
// closed after 10s.
func webhookConfiguration(kind, name, url, caBundle string, rule map[string]any) *kube.Unstructured {
	return &kube.Unstructured{
		TypeMeta:   kube.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: kind},
		ObjectMeta: kube.ObjectMeta{Name: name},
		Content: map[string]any{"webhooks": []any{map[string]any{
			"name":                    "webhook.kubeloop.test",
			"clientConfig":            map[string]any{"url": url, "caBundle": caBundle},
			"rules":                   []any{rule},
			"admissionReviewVersions": []any{"v1"},
			"sideEffects":             "None",
			"failurePolicy":           "Fail",
			"timeoutSeconds":          10,
		}}},
	}
}

// adminClient is a client of the harness's server as its admin, and a
// context that ends with the test, or after two minutes.
func adminClient(t *testing.T) (*kube.Client, context.Context) {
	t.Helper()
	admin, _ := loadConfigs(t)
	c, err := kube.NewClient(admin, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return c, ctx
}

func randomName() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}
