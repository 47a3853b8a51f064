// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kubeloop/kubeloop/kube"
)

// EnsureFinalizer adds the finalizer name to obj on the server unless obj
// has it already, and reports whether it wrote. The write is a JSON merge
// patch of metadata.finalizers that carries obj's resourceVersion, so it
// fails with a Conflict ([kube.IsConflict]) if obj changed since it was
// read (the list would otherwise drop a finalizer added meanwhile); the
// server's answer is read into obj. Use it at the start of a reconcile,
// before creating anything the finalizer is to clean up.
//
// An object being deleted (deletionTimestamp set) takes no new
// finalizers: the server refuses them, and EnsureFinalizer returns that
// error.
func EnsureFinalizer(ctx context.Context, c Client, obj kube.Object, name string) (bool, error) {
	m := obj.GetObjectMeta()
	if m.HasFinalizer(name) {
		return false, nil
	}
	fins := append(append([]string(nil), m.Finalizers...), name)
	if err := patchFinalizers(ctx, c, obj, fins); err != nil {
		return false, fmt.Errorf("add finalizer %s: %w", name, err)
	}
	return true, nil
}

// RemoveFinalizer removes the finalizer name from obj on the server if
// obj has it, and reports whether it wrote; it patches as
// [EnsureFinalizer] does. Call it once the cleanup the finalizer guards
// is done: when it was the last finalizer of an object being deleted, the
// server deletes the object.
func RemoveFinalizer(ctx context.Context, c Client, obj kube.Object, name string) (bool, error) {
	m := obj.GetObjectMeta()
	if !m.HasFinalizer(name) {
		return false, nil
	}
	var fins []string
	for _, f := range m.Finalizers {
		if f != name {
			fins = append(fins, f)
		}
	}
	if err := patchFinalizers(ctx, c, obj, fins); err != nil {
		return false, fmt.Errorf("remove finalizer %s: %w", name, err)
	}
	return true, nil
}

func patchFinalizers(ctx context.Context, c Client, obj kube.Object, fins []string) error {
	meta := map[string]any{"finalizers": fins} // nil encodes as null: the field goes
	if rv := obj.GetObjectMeta().ResourceVersion; rv != "" {
		meta["resourceVersion"] = rv
	}
	data, err := json.Marshal(map[string]any{"metadata": meta})
	if err != nil {
		return err
	}
	return c.Patch(ctx, obj, kube.Patch{Type: kube.MergePatch, Data: data})
}
