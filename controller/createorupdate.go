// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

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
// The update carries the resourceVersion read, so a concurrent change
// makes it fail with a Conflict: retry with [kube.RetryOnConflict].
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
		return OperationUnchanged, fmt.Errorf("create or update %s: encode: %w", key, err)
	}
	if err := mutateKeepingKey(key, obj, mutate); err != nil {
		return OperationUnchanged, err
	}
	after, err := json.Marshal(obj)
	if err != nil {
		return OperationUnchanged, fmt.Errorf("create or update %s: encode: %w", key, err)
	}
	if bytes.Equal(before, after) {
		return OperationUnchanged, nil
	}
	if err := c.Update(ctx, obj); err != nil {
		return OperationUnchanged, err
	}
	return OperationUpdated, nil
}

// CreateOrPatch is [CreateOrUpdate] that writes with JSON merge patches
// of what mutate changed, without resourceVersion, so it does not
// conflict with concurrent changes to other fields: one patch for the
// object without its status, then one through the status subresource if
// the status changed. It reports which of the two it sent.
func CreateOrPatch(ctx context.Context, c Client, obj kube.Object, mutate func() error) (OperationResult, error) {
	key := obj.GetObjectMeta().Key()
	if err := c.Get(ctx, key, obj); err != nil {
		if !kube.IsNotFound(err) {
			return OperationUnchanged, err
		}
		return create(ctx, c, key, obj, mutate)
	}
	before, err := toFields(obj)
	if err != nil {
		return OperationUnchanged, fmt.Errorf("create or patch %s: %w", key, err)
	}
	if err := mutateKeepingKey(key, obj, mutate); err != nil {
		return OperationUnchanged, err
	}
	after, err := toFields(obj)
	if err != nil {
		return OperationUnchanged, fmt.Errorf("create or patch %s: %w", key, err)
	}
	// Both patches are made before either is sent: a patch reads the
	// server's answer back into obj.
	statusPatch := mergePatch(map[string]any{"status": before["status"]}, map[string]any{"status": after["status"]})
	delete(before, "status")
	delete(after, "status")
	patch := mergePatch(before, after)

	result := OperationUnchanged
	if patch != nil {
		if err := sendPatch(ctx, c.Patch, obj, patch); err != nil {
			return OperationUnchanged, err
		}
		result = OperationUpdated
	}
	if statusPatch != nil {
		if err := sendPatch(ctx, c.Status().Patch, obj, statusPatch); err != nil {
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
		return fmt.Errorf("mutate %s: %w", key, err)
	}
	if got := obj.GetObjectMeta().Key(); got != key {
		return fmt.Errorf("mutate %s: it changed the namespace or name to %s, which it must not", key, got)
	}
	return nil
}

func sendPatch(ctx context.Context, send func(context.Context, kube.Object, kube.Patch) error, obj kube.Object, patch map[string]any) error {
	data, err := json.Marshal(patch)
	if err != nil {
		return fmt.Errorf("encode patch of %s: %w", obj.GetObjectMeta().Key(), err)
	}
	return send(ctx, obj, kube.Patch{Type: kube.MergePatch, Data: data})
}

// toFields returns obj's JSON as generic values (numbers as json.Number,
// so they compare exactly).
func toFields(obj kube.Object) (map[string]any, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return m, nil
}

// mergePatch returns the RFC 7386 merge patch that turns before into
// after, or nil if they are equal: changed and added fields with their
// new value, removed ones as null, objects recursively; anything else
// (lists included) whole.
func mergePatch(before, after map[string]any) map[string]any {
	var patch map[string]any
	set := func(k string, v any) {
		if patch == nil {
			patch = map[string]any{}
		}
		patch[k] = v
	}
	for k, av := range after {
		bv, ok := before[k]
		if !ok {
			if av != nil {
				set(k, av)
			}
			continue
		}
		bm, bok := bv.(map[string]any)
		am, aok := av.(map[string]any)
		switch {
		case bok && aok:
			if sub := mergePatch(bm, am); sub != nil {
				set(k, sub)
			}
		case !reflect.DeepEqual(bv, av):
			set(k, av)
		}
	}
	for k, bv := range before {
		if _, ok := after[k]; !ok && bv != nil {
			set(k, nil)
		}
	}
	return patch
}
