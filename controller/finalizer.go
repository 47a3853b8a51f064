// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"github.com/kubeloop/kubeloop/internal/errs"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
)

// EnsureFinalizer adds the finalizer name to obj on the server unless obj
// has it already, and reports whether it wrote; the server's answer is
// read into obj. Use it at the start of a reconcile, before creating
// anything the finalizer is to clean up.
//
// The write is a [kube.MergeFrom] patch of metadata.finalizers with the
// optimistic lock: a merge patch replaces the list whole, so it must not
// be made from a stale list (it would drop a finalizer added meanwhile,
// or put back one removed). A slightly stale obj, as a cache gives, does
// not fail for that: on a Conflict, obj is read afresh from the server
// (with a patch that changes nothing, {}, which any [Client] can send)
// and the change made again, up to 5 times. A stale read thus costs two
// more requests instead of an error.
//
// An object being deleted (deletionTimestamp set) takes no new
// finalizers: the server refuses them, and EnsureFinalizer returns that
// error.
func EnsureFinalizer(ctx context.Context, c Client, obj kube.Object, name string) (bool, error) {
	wrote, err := patchFinalizers(ctx, c, obj, func(m *kube.ObjectMeta) bool {
		if m.HasFinalizer(name) {
			return false
		}
		m.Finalizers = append(slices.Clip(m.Finalizers), name)
		return true
	})
	if err != nil {
		return false, errs.Errorf("add finalizer %s: %w", name, err)
	}
	return wrote, nil
}

// RemoveFinalizer removes the finalizer name from obj on the server if
// obj has it, and reports whether it wrote; it patches as
// [EnsureFinalizer] does, so a slightly stale obj does not make it fail
// with a Conflict either. Call it once the cleanup the finalizer guards
// is done: when it was the last finalizer of an object being deleted, the
// server deletes the object.
//
// An object already gone (NotFound, because another reconcile or writer
// removed the last finalizer first; on kube-apiserver 1.33 the 409 that
// [kube.IsNotFound] also reports) is what RemoveFinalizer is for: it
// returns false and nil.
func RemoveFinalizer(ctx context.Context, c Client, obj kube.Object, name string) (bool, error) {
	wrote, err := patchFinalizers(ctx, c, obj, func(m *kube.ObjectMeta) bool {
		if !m.HasFinalizer(name) {
			return false
		}
		m.Finalizers = slices.DeleteFunc(slices.Clone(m.Finalizers), func(f string) bool { return f == name })
		if len(m.Finalizers) == 0 {
			m.Finalizers = nil
		}
		return true
	})
	switch {
	case kube.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, errs.Errorf("remove finalizer %s: %w", name, err)
	}
	return wrote, nil
}

// finalizerTries bounds the reads afresh of patchFinalizers: each costs a
// request, and only a writer changing the object between two of our
// requests, five times over, exhausts them.
const finalizerTries = 5

// patchFinalizers makes change to obj's metadata and, if it changed
// anything, sends it as a merge patch with the optimistic lock; on a
// Conflict it reads obj afresh and tries again. An obj without a
// resourceVersion (not read from the server) is read first. On error,
// obj's finalizers are as before the change.
func patchFinalizers(ctx context.Context, c Client, obj kube.Object, change func(*kube.ObjectMeta) bool) (bool, error) {
	if obj.GetObjectMeta().ResourceVersion == "" {
		if err := readAfresh(ctx, c, obj); err != nil {
			return false, err
		}
	}
	for try := 1; ; try++ {
		m := obj.GetObjectMeta()
		patch := kube.MergeFromWithOptions(obj, kube.MergeFromWithOptimisticLock{})
		old := m.Finalizers // change does not modify it in place
		if !change(m) {
			return false, nil
		}
		err := c.Patch(ctx, obj, patch)
		if err == nil {
			return true, nil
		}
		m.Finalizers = old
		if !kube.IsConflict(err) || try == finalizerTries {
			return false, err
		}
		// obj was stale: read what the server holds now.
		if err := readAfresh(ctx, c, obj); err != nil {
			return false, err
		}
	}
}

// readAfresh reads obj from the server into obj, with a merge patch that
// changes nothing: the server answers the object as it holds it, and
// stores nothing.
func readAfresh(ctx context.Context, c Client, obj kube.Object) error {
	return c.Patch(ctx, obj, kube.Patch{Type: kube.MergePatch, Data: []byte("{}")})
}
