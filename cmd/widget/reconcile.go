// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

const (
	// Finalizer holds a Widget until its ConfigMaps are gone (the API
	// server's garbage collector would delete them too, from their owner
	// reference, but a cluster without kube-controller-manager has none,
	// and the finalizer makes the cleanup visible as an event).
	Finalizer = "example.kubeloop.dev/cleanup"
	// LabelManagedBy marks the ConfigMaps the operator writes; the cache
	// holds only those.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ConditionReady is the Widget's condition type.
	ConditionReady = "Ready"
)

// recorder records Events; a *manager.EventRecorder is one.
type recorder interface {
	Eventf(regarding kube.Object, severity manager.Severity, reason, action, noteFmt string, args ...any)
}

// reconciler makes each Widget's ConfigMap hold its spec, and reports
// in the Widget's status. It reads through the manager's client (from the
// cache) and writes through it (to the API server).
type reconciler struct {
	client controller.Client
	events recorder
}

// Reconcile brings one Widget's ConfigMap in line with its spec:
//
//  1. a Widget being deleted has its ConfigMaps deleted (found through
//     the cache's owner index), then its finalizer removed;
//  2. otherwise it gets the finalizer, then its ConfigMap is created or
//     put back as the spec says (a hand edit is undone), and the status
//     says Ready with the generation it was made from.
//
// Every write is a patch of what the reconcile changed, so a Widget read
// from the cache a little stale, as it often is, costs no Conflict.
func (r *reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	var w Widget
	if err := r.client.Get(ctx, req.Key, &w); err != nil {
		if kube.IsNotFound(err) {
			return controller.Result{}, nil // deleted: nothing left to do
		}
		return controller.Result{}, err
	}
	if w.DeletionTimestamp != nil {
		return controller.Result{}, r.finalize(ctx, &w)
	}
	if _, err := controller.EnsureFinalizer(ctx, r.client, &w, Finalizer); err != nil {
		return controller.Result{}, err
	}
	cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: w.Namespace, Name: "widget-" + w.Name}}
	op, err := controller.CreateOrPatch(ctx, r.client, cm, func() error {
		if cm.Labels == nil {
			cm.Labels = map[string]string{}
		}
		cm.Labels[LabelManagedBy] = Name
		cm.Data = map[string]string{"color": w.Spec.Color, "size": strconv.Itoa(int(w.Spec.Size))}
		return controller.SetControllerReference(&w, cm)
	})
	ready := kube.Condition{Type: ConditionReady, Status: kube.ConditionTrue, Reason: "Reconciled",
		Message: "ConfigMap " + cm.Name + " holds the spec", ObservedGeneration: w.Generation}
	if err != nil {
		ready.Status, ready.Reason, ready.Message = kube.ConditionFalse, "Failed", err.Error()
		r.events.Eventf(&w, manager.Warning, "Failed", "Reconcile", "write ConfigMap %s: %v", cm.Name, err)
	} else if op != controller.OperationUnchanged {
		r.events.Eventf(&w, manager.Normal, "ConfigMap"+opWord(op), "Reconcile", "ConfigMap %s %s", cm.Name, op)
	}
	if serr := r.writeStatus(ctx, &w, cm.Name, ready); serr != nil {
		return controller.Result{}, errors.Join(err, serr)
	}
	return controller.Result{}, err
}

// writeStatus sets the Ready condition and the observed generation, and
// writes the status if that changed it (an unchanged status costs no
// request, so a resync of a ready Widget writes nothing). The write is a
// merge patch of the fields changed (kube.MergeFrom), not an update: w
// comes from the cache and may be a version or two behind, which an
// update would Conflict on, for a write that changes nothing another
// writer does. (The conditions list is sent whole: this operator is the
// only writer of the Widget's conditions.)
func (r *reconciler) writeStatus(ctx context.Context, w *Widget, cmName string, ready kube.Condition) error {
	patch := kube.MergeFrom(w)
	changed := kube.SetStatusCondition(&w.Status.Conditions, ready)
	if w.Status.ObservedGeneration != w.Generation || w.Status.ConfigMap != cmName {
		w.Status.ObservedGeneration, w.Status.ConfigMap, changed = w.Generation, cmName, true
	}
	if !changed {
		return nil
	}
	if err := r.client.Status().Patch(ctx, w, patch); err != nil {
		return fmt.Errorf("write the status of widget %s: %w", w.Key(), err)
	}
	return nil
}

// finalize deletes the Widget's ConfigMaps, then lets the Widget go.
func (r *reconciler) finalize(ctx context.Context, w *Widget) error {
	if !w.HasFinalizer(Finalizer) {
		return nil
	}
	var cms kube.List[kube.ConfigMap]
	if err := r.client.List(ctx, &cms, cache.OwnedBy(w)); err != nil {
		return err
	}
	for i := range cms.Items {
		cm := &cms.Items[i]
		if err := r.client.Delete(ctx, cm); err != nil && !kube.IsNotFound(err) {
			return err
		}
		r.events.Eventf(w, manager.Normal, "ConfigMapDeleted", "Finalize", "ConfigMap %s deleted", cm.Name)
	}
	_, err := controller.RemoveFinalizer(ctx, r.client, w, Finalizer)
	return err
}

func opWord(op controller.OperationResult) string {
	if op == controller.OperationCreated {
		return "Created"
	}
	return "Updated"
}
