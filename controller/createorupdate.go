// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/kubeloop/kubeloop/internal/errs"

	"github.com/kubeloop/kubeloop/kube"
)

// OperationResult says what [CreateOrUpdate] or [CreateOrPatch] did.
type OperationResult string

// The operation results (controller-runtime's values).
const (
	OperationUnchanged         OperationResult = "unchanged"         // nothing written
	OperationCreated           OperationResult = "created"           // the object was created
	OperationUpdated           OperationResult = "updated"           // the object was updated (not its status)
	OperationUpdatedStatus     OperationResult = "updatedStatus"     // the object and its status were patched
	OperationUpdatedStatusOnly OperationResult = "updatedStatusOnly" // only the status was patched
)

// CreateOrUpdate makes the object obj names look as mutate wants: it
// reads it into obj (obj's namespace and name say which), calls mutate to
// change obj, and creates it if it did not exist, or updates it if mutate
// changed it (compared as JSON). mutate must not change the namespace or
// the name; it is called once. Status changes are not written by Update
// for kinds with a status subresource; see [CreateOrPatch].
//
// The update carries the resourceVersion read, so a concurrent change, or
// a stale read from a cache, makes it fail with a Conflict: retry with
// [kube.RetryOnConflict], or use [CreateOrPatch], which does not conflict.
// It is a [kube.Client.Update]: the fields obj's type does not declare
// are kept as stored, at the cost of one GET more before the update
// (none for the kinds kube declares in full and for kube.Unstructured).
func CreateOrUpdate(ctx context.Context, c Client, obj kube.Object, mutate func() error) (OperationResult, error) {
	key := obj.GetObjectMeta().Key()
	if err := c.Get(ctx, key, obj); err != nil {
		if !kube.IsNotFound(err) {
			return OperationUnchanged, err
		}
		return create(ctx, c, key, obj, mutate)
	}
	before, err := json.Marshal(obj)
	if err != nil {
		return OperationUnchanged, errs.Errorf("create or update %s: encode: %w", key, err)
	}
	if err := mutateKeepingKey(key, obj, mutate); err != nil {
		return OperationUnchanged, err
	}
	after, err := json.Marshal(obj)
	if err != nil {
		return OperationUnchanged, errs.Errorf("create or update %s: encode: %w", key, err)
	}
	if bytes.Equal(before, after) {
		return OperationUnchanged, nil
	}
	if err := c.Update(ctx, obj); err != nil {
		return OperationUnchanged, err
	}
	return OperationUpdated, nil
}

// CreateOrPatch is [CreateOrUpdate] that writes what mutate changed as
// [kube.MergeFrom] patches, without resourceVersion, so it does not
// conflict with concurrent changes to other fields, however stale the
// copy read (a cache's): one patch for the object without its status,
// then one through the status subresource if the status changed. It
// reports which of the two it sent. Lists mutate changes are sent whole
// (merge patch semantics).
func CreateOrPatch(ctx context.Context, c Client, obj kube.Object, mutate func() error) (OperationResult, error) {
	key := obj.GetObjectMeta().Key()
	if err := c.Get(ctx, key, obj); err != nil {
		if !kube.IsNotFound(err) {
			return OperationUnchanged, err
		}
		return create(ctx, c, key, obj, mutate)
	}
	from := kube.MergeFrom(obj)
	if err := mutateKeepingKey(key, obj, mutate); err != nil {
		return OperationUnchanged, err
	}
	// Both patches are made before either is sent: a patch reads the
	// server's answer back into obj.
	patch, statusPatch, err := splitStatus(from, obj)
	if err != nil {
		return OperationUnchanged, errs.Errorf("create or patch %s: %w", key, err)
	}
	result := OperationUnchanged
	if patch != nil {
		if err := c.Patch(ctx, obj, kube.Patch{Type: kube.MergePatch, Data: patch}); err != nil {
			return OperationUnchanged, err
		}
		result = OperationUpdated
	}
	if statusPatch != nil {
		if err := c.Status().Patch(ctx, obj, kube.Patch{Type: kube.MergePatch, Data: statusPatch}); err != nil {
			return result, err
		}
		if result == OperationUpdated {
			result = OperationUpdatedStatus
		} else {
			result = OperationUpdatedStatusOnly
		}
	}
	return result, nil
}

// splitStatus returns the merge patch from makes for obj as two: the
// object's without the status, and the status's; nil for one with no
// change.
func splitStatus(from kube.Patch, obj kube.Object) (patch, statusPatch []byte, err error) {
	data, err := from.DataFor(obj)
	if err != nil {
		return nil, nil, err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber() // numbers keep their digits
	var diff map[string]any
	if err := d.Decode(&diff); err != nil {
		return nil, nil, errs.Errorf("decode patch: %w", err)
	}
	if status, ok := diff["status"]; ok {
		delete(diff, "status")
		if statusPatch, err = json.Marshal(map[string]any{"status": status}); err != nil {
			return nil, nil, errs.Errorf("encode patch: %w", err)
		}
	}
	if len(diff) > 0 {
		if patch, err = json.Marshal(diff); err != nil {
			return nil, nil, errs.Errorf("encode patch: %w", err)
		}
	}
	return patch, statusPatch, nil
}

func create(ctx context.Context, c Client, key kube.Key, obj kube.Object, mutate func() error) (OperationResult, error) {
	if err := mutateKeepingKey(key, obj, mutate); err != nil {
		return OperationUnchanged, err
	}
	if err := c.Create(ctx, obj); err != nil {
		return OperationUnchanged, err
	}
	return OperationCreated, nil
}

// mutateKeepingKey calls mutate and checks that obj still has key.
func mutateKeepingKey(key kube.Key, obj kube.Object, mutate func() error) error {
	if err := mutate(); err != nil {
		return errs.Errorf("mutate %s: %w", key, err)
	}
	if got := obj.GetObjectMeta().Key(); got != key {
		return errs.Errorf("mutate %s: it changed the namespace or name to %s, which it must not", key, got)
	}
	return nil
}
