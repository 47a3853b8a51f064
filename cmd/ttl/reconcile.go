// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// recorder records Events; a *manager.EventRecorder is one.
type recorder interface {
	// Eventf records an event of severity manager.Normal or
	// manager.Warning regarding obj, with the note
	// fmt.Sprintf(noteFmt, args...).
	Eventf(regarding kube.Object, severity manager.Severity, reason, action, noteFmt string, args ...any)
}

// reconciler deletes the expired objects of one kind. It reads only from
// the cache (metadata only); while an object has time left it asks to be
// called again when it is due (Result.RequeueAfter), so the API server
// sees one DELETE per expired object and nothing else.
type reconciler struct {
	gvk    kube.GroupVersionKind
	cache  *cache.Cache
	client *kube.Client // for the deletes
	events recorder
}

// meta returns an empty metadata-only object of the kind.
func (r *reconciler) meta() *kube.PartialObjectMetadata {
	o := &kube.PartialObjectMetadata{}
	o.SetGroupVersionKind(r.gvk)
	return o
}

// Reconcile implements [controller.Reconciler].
func (r *reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	obj := r.meta()
	err := r.cache.Get(ctx, req.Key, obj)
	switch {
	case kube.IsNotFound(err):
		return controller.Result{}, nil
	case err != nil:
		return controller.Result{}, err
	case obj.DeletionTimestamp != nil:
		return controller.Result{}, nil // on its way out already
	}
	left, err := timeLeft(&obj.ObjectMeta, time.Now())
	switch {
	case errors.Is(err, errNoTTL):
		return controller.Result{}, nil
	case err != nil:
		// Never delete on a value that does not parse; a change to the
		// object queues it again.
		r.events.Eventf(obj, manager.Warning, "InvalidTTL", "Expire", "not deleting: %v", err)
		return controller.Result{}, controller.TerminalError(err)
	case left > 0:
		return controller.Result{RequeueAfter: left}, nil
	}

	// Delete the object as the cache saw it: if it changed since (its
	// TTL, say), the server answers Conflict and it is judged again.
	uid, rv := obj.UID, obj.ResourceVersion
	err = r.client.Delete(ctx, obj, kube.Preconditions{UID: &uid, ResourceVersion: &rv}, kube.PropagationBackground)
	switch {
	case kube.IsNotFound(err):
		return controller.Result{}, nil
	case kube.IsConflict(err):
		return controller.RequeueRateLimited(), nil
	case err != nil:
		return controller.Result{}, err
	}
	ttl := obj.Annotations[AnnotationTTL]
	r.events.Eventf(obj, manager.Normal, "Expired", "Delete", "deleted %s %s: its ttl of %s has passed since its creation at %s",
		strings.ToLower(r.gvk.Kind), obj.Key(), ttl, obj.CreationTimestamp.UTC().Format(time.RFC3339))
	controller.LoggerFrom(ctx).Info("deleted expired object", "ttl", ttl, "created", obj.CreationTimestamp.Time)
	return controller.Result{}, nil
}
