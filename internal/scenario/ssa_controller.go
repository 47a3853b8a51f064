// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
)

// testApplyControllers runs two controllers made with kubeloop that each
// own one condition of a custom resource's status, which they apply
// through the status subresource as field managers of their own. On the
// real server both conditions stay, and each manager's entry holds only
// its condition: kubetest must agree, or a controller that passes its
// tests would fight its neighbour in a cluster.
func testApplyControllers(t *testing.T, f *fixture) {
	tr := f.installTrackers(t)
	objects, err := cache.NewInformer[kube.Unstructured](f.c, cache.InformerOptions{Kind: tr.gvk, Namespaces: []string{f.ns}})
	if err != nil {
		t.Fatal(err)
	}
	settled := make(chan string, 2)
	failed := make(chan error, 2) // the first failure of each controller
	newController := func(manager, condition string) *controller.Controller {
		client, err := kube.NewClient(f.env.Config, kube.ClientOptions{FieldManager: manager})
		if err != nil {
			t.Fatal(err)
		}
		var once, failOnce sync.Once
		r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			obj, ok := objects.Get(req.Key)
			if !ok {
				return controller.Result{}, nil
			}
			if hasCondition(obj, condition) {
				once.Do(func() { settled <- manager })
				return controller.Result{}, nil
			}
			cfg := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: req.Namespace, Name: req.Name}}
			cfg.SetGroupVersionKind(tr.gvk)
			body, _ := json.Marshal(map[string]any{"apiVersion": tr.apiVersion, "kind": tr.kind,
				"metadata": map[string]any{"name": req.Name, "namespace": req.Namespace},
				"status": map[string]any{"conditions": []any{
					map[string]any{"type": condition, "status": "True", "reason": "Reconciled"}}}})
			err := client.Status().Patch(ctx, cfg, kube.Patch{Type: kube.ApplyPatch, Data: body})
			if err != nil && ctx.Err() == nil {
				failOnce.Do(func() { failed <- fmt.Errorf("%s: %w", manager, err) })
			}
			return controller.Result{}, err
		})
		c, err := controller.New(manager, r, controller.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Watch(controller.Kind(objects.ObjectInformer(), controller.EnqueueObject())); err != nil {
			t.Fatal(err)
		}
		return c
	}
	ready, synced := newController("ready-ctl", "Ready"), newController("sync-ctl", "Synced")

	ctx, cancel := context.WithCancel(f.ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = objects.Start(ctx) })
	wg.Go(func() { _ = ready.Start(ctx) })
	wg.Go(func() { _ = synced.Start(ctx) })
	defer func() {
		cancel()
		wg.Wait()
	}()

	path := tr.collection + "/both"
	f.mustApply(t, path, "creator", tr.config("both", `"spec":{"tags":["a"]}`), false)
	for range 2 {
		select {
		case <-settled:
		case err := <-failed:
			t.Fatalf("a controller could not apply its condition: %v", err)
		case <-f.ctx.Done():
			t.Fatalf("the controllers did not both see their condition: %s", f.send(t, "GET", path, "", "").body)
		}
	}
	o := f.get(t, path)
	conditions, _ := field(o, "status", "conditions").([]any)
	slices.SortFunc(conditions, func(a, b any) int {
		return strings.Compare(field(a, "type").(string), field(b, "type").(string))
	})
	expectField(t, "two controllers", map[string]any{"c": conditions},
		`[{"reason":"Reconciled","status":"True","type":"Ready"},{"reason":"Reconciled","status":"True","type":"Synced"}]`, "c")
	entry := func(manager, condition string) string {
		return mfEntry(manager, "Apply", tr.apiVersion, "status",
			`{"f:status":{"f:conditions":{"k:{\"type\":\"`+condition+`\"}":{".":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`)
	}
	expectManagedFields(t, "two controllers", o, "["+mfEntry("creator", "Apply", tr.apiVersion, "", `{"f:spec":{"f:tags":{"v:\"a\"":{}}}}`)+","+
		entry("ready-ctl", "Ready")+","+entry("sync-ctl", "Synced")+"]")
}

func hasCondition(o *kube.Unstructured, condition string) bool {
	conditions, _ := o.Field("status", "conditions")
	list, _ := conditions.([]any)
	return slices.ContainsFunc(list, func(c any) bool { return field(c, "type") == condition })
}
