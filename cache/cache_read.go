// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"fmt"
	"github.com/kubeloop/kubeloop/internal/errs"
	"net/http"
	"reflect"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is the read side of the Cache, and its errors: Get and List
// with deep copies, View without. Each read finds (or makes and starts)
// the informer of the object's kind and Go type, and waits for it to
// sync, bounded by ctx.

// Get reads the cached object at key into obj, whose kind and Go type pick
// the informer; obj is overwritten with a deep copy the caller owns. The
// error is one [kube.IsNotFound] reports when the object is not cached (a
// 404 Status as the server's: `configmaps "x" not found`), a
// [*NotSyncedError] when the informer has not synced (at once if the cache
// is not started, else when ctx ends first), and a [*NotAllowedError] for
// a namespace or kind outside the cache's scope. The namespace of a
// cluster-scoped kind is ignored.
func (c *Cache) Get(ctx context.Context, key kube.Key, obj kube.Object) error {
	if !c.made() {
		return errNoCache
	}
	gvk := obj.GroupVersionKind()
	k, err := c.readable(ctx, gvk, reflect.TypeOf(obj).Elem(), &key.Namespace)
	if err != nil {
		return errs.Errorf("get %s %s: %w", gvk.Kind, key, err)
	}
	c.awaitObject(ctx, k.inf, gvk, key)
	stored, ok := k.inf.store.get(key)
	if !ok {
		return errs.Errorf("get %s %s: %w", gvk.Kind, key, notFound(k.mapping, key.Name))
	}
	k.copy(reflect.ValueOf(obj).Elem(), reflect.ValueOf(stored).Elem())
	return nil
}

// List reads the cached objects opts select into list (a *kube.List[T]),
// whose item kind and Go type pick the informer; the items are deep copies
// the caller owns, in no particular order, and the list's metadata is
// cleared. opts are answered as [ReadOnly.List] says: namespace, label
// selector, field selector terms on indexed fields (see
// [Cache.IndexField]) and on metadata.name and metadata.namespace, and
// Limit. Errors are as for [Cache.Get].
func (c *Cache) List(ctx context.Context, list kube.ObjectList, opts kube.ListOptions) error {
	if !c.made() {
		return errNoCache
	}
	gvk := list.ItemGroupVersionKind()
	items, err := itemsOf(list)
	if err != nil {
		return errs.Errorf("list %s: %w", gvk.Kind, err)
	}
	k, err := c.readable(ctx, gvk, items.Type().Elem(), &opts.Namespace)
	if err != nil {
		return errs.Errorf("list %s: %w", gvk.Kind, err)
	}
	c.awaitList(ctx, k.inf, gvk, opts)
	var found []kube.Object
	if err := k.inf.list(opts, func(obj kube.Object) { found = append(found, obj) }); err != nil {
		return err
	}
	out := reflect.MakeSlice(items.Type(), len(found), len(found))
	for n, obj := range found {
		k.copy(out.Index(n), reflect.ValueOf(obj).Elem())
	}
	items.Set(out)
	*list.GetListMeta() = kube.ListMeta{}
	return nil
}

// View returns the zero-copy view of the cached objects of like's kind
// and Go type (like only names them: a typed object such as
// &kube.ConfigMap{}, or an Unstructured or PartialObjectMetadata with
// apiVersion and kind set), making the informer and waiting for it to
// sync as [Cache.Get] does. The objects it returns are the cache's own and
// must not be modified. The view stays valid: keep it for a hot loop.
func View[T any](ctx context.Context, c *Cache, like *T) (ReadOnly[T], error) {
	obj, ok := any(like).(kube.Object)
	if !ok {
		return ReadOnly[T]{}, errs.Errorf("view: *%s does not implement kube.Object", reflect.TypeFor[T]())
	}
	k, err := c.readable(ctx, obj.GroupVersionKind(), reflect.TypeFor[T](), nil)
	if err != nil {
		return ReadOnly[T]{}, errs.Errorf("view %s: %w", obj.GroupVersionKind().Kind, err)
	}
	return ReadOnly[T]{inf: k.inf}, nil
}

// readable returns the informer of gvk and typ once it has synced. When ns
// is not nil it is the namespace read: cleared for a cluster-scoped kind,
// and checked against the informer's scope.
func (c *Cache) readable(ctx context.Context, gvk kube.GroupVersionKind, typ reflect.Type, ns *string) (*cachedKind, error) {
	k, err := c.kindFor(ctx, gvk, typ)
	if err != nil {
		return nil, err
	}
	if ns != nil && !k.mapping.Namespaced {
		*ns = ""
	}
	if ns != nil && !k.inf.allows(*ns) {
		return nil, &NotAllowedError{Kind: gvk, Namespace: *ns,
			Reason: fmt.Sprintf("the cache holds namespaces %q only", k.inf.scope())}
	}
	if k.inf.hub.storeSynced() {
		return k, nil
	}
	c.mu.Lock()
	ph := c.phase
	c.mu.Unlock()
	if ph != running {
		return nil, k.inf.notSynced(errNotRunning)
	}
	select {
	case <-k.inf.hub.synced:
		return k, nil
	case <-ctx.Done():
		return nil, k.inf.notSynced(ctx.Err())
	}
}

// errNotRunning is the cause of a NotSyncedError from a cache that is not
// started or has stopped.
var errNotRunning = errors.New("the cache is not running")

// itemsOf returns the settable Items slice of list, which must point to a
// struct with one (as kube.List does).
func itemsOf(list kube.ObjectList) (reflect.Value, error) {
	v := reflect.ValueOf(list)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, errs.Errorf("%T is not a pointer to a list struct", list)
	}
	items := v.Elem()
	index := itemsField(items.Type())
	for _, i := range index {
		items = items.Field(i)
	}
	if index == nil || items.Kind() != reflect.Slice || !items.CanSet() {
		return reflect.Value{}, errs.Errorf("%T has no Items slice", list)
	}
	return items, nil
}

// itemsField returns the index path of the field a selector list.Items
// names in struct type t, as Go's rules choose it: the shallowest field
// of that name, through embedded structs, and none when two are equally
// shallow. It is reflect's FieldByName without following embedded
// pointers (a list embeds none; FieldByName adds 10 kB to a program).
func itemsField(t reflect.Type) []int {
	type embedded struct {
		t     reflect.Type
		index []int
	}
	level := []embedded{{t: t}}
	for len(level) > 0 {
		var found []int
		var next []embedded
		for _, e := range level {
			for i := range e.t.NumField() {
				f := e.t.Field(i)
				index := append(append([]int(nil), e.index...), i)
				switch {
				case f.Name == "Items" && found != nil:
					return nil // ambiguous
				case f.Name == "Items":
					found = index
				case f.Anonymous && f.Type.Kind() == reflect.Struct:
					next = append(next, embedded{f.Type, index})
				}
			}
		}
		if found != nil {
			return found
		}
		level = next
	}
	return nil
}

// notFound is the error the server gives for a missing object.
func notFound(m kube.Mapping, name string) *kube.StatusError {
	se := kube.NewStatusError(http.StatusNotFound, kube.ReasonNotFound, fmt.Sprintf("%s %q not found", qualified(m), name))
	se.Status.Details = &kube.StatusDetails{Name: name, Group: m.GVK.Group, Kind: m.Resource}
	return se
}

// qualified is "resource" in the core group and "resource.group" otherwise,
// as the server names resources in its messages.
func qualified(m kube.Mapping) string {
	if m.GVK.Group == "" {
		return m.Resource
	}
	return m.Resource + "." + m.GVK.Group
}

// ErrNotSynced is what [errors.Is] finds in a [*NotSyncedError].
var ErrNotSynced = errors.New("cache not synced")

// NotSyncedError says a read or a wait hit a kind whose informer has not
// read the server's state yet.
type NotSyncedError struct {
	Kind kube.GroupVersionKind
	// Cause is why the wait ended (the context's error), or nil when the
	// cache was not started.
	Cause error
	// LastError is the informer's last list or watch failure, if any: the
	// likely reason it has not synced (a missing RBAC rule, a wrong kind).
	LastError error
}

func (e *NotSyncedError) Error() string {
	if e == nil {
		return "<nil *cache.NotSyncedError>"
	}
	msg := fmt.Sprintf("cache for %s (%s) not synced", e.Kind.Kind, e.Kind.APIVersion())
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	if e.LastError != nil {
		msg += " (last error: " + e.LastError.Error() + ")"
	}
	return msg
}

// Is makes errors.Is(err, ErrNotSynced) true.
func (e *NotSyncedError) Is(target error) bool { return target == ErrNotSynced }

// Unwrap returns the cause, so that errors.Is(err, context.DeadlineExceeded)
// works too.
func (e *NotSyncedError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// ErrNotAllowed is what [errors.Is] finds in a [*NotAllowedError].
var ErrNotAllowed = errors.New("read outside the cache's scope")

// NotAllowedError says a read asked for something the cache does not
// hold by configuration: a namespace outside [Options.Namespaces], or a
// kind not declared in a cache that only serves declared kinds.
type NotAllowedError struct {
	Kind      kube.GroupVersionKind
	Namespace string // empty when the kind is what is not allowed
	Reason    string
}

func (e *NotAllowedError) Error() string {
	if e == nil {
		return "<nil *cache.NotAllowedError>"
	}
	if e.Namespace != "" {
		return fmt.Sprintf("cache for %s: namespace %q not allowed: %s", e.Kind.Kind, e.Namespace, e.Reason)
	}
	return fmt.Sprintf("cache for %s not allowed: %s", e.Kind.Kind, e.Reason)
}

// Is makes errors.Is(err, ErrNotAllowed) true.
func (e *NotAllowedError) Is(target error) bool { return target == ErrNotAllowed }
