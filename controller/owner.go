// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"errors"
	"fmt"
	"github.com/kubeloop/kubeloop/internal/errs"

	"github.com/kubeloop/kubeloop/kube"
)

// AlreadyOwnedError says an object has a controller reference to another
// owner than the one [SetControllerReference] was given: an object has at
// most one controller.
type AlreadyOwnedError struct {
	// Object is the object's key.
	Object kube.Key
	// Owner is the controller reference it has.
	Owner kube.OwnerReference
}

func (e *AlreadyOwnedError) Error() string {
	if e == nil {
		return "<nil *controller.AlreadyOwnedError>"
	}
	return fmt.Sprintf("object %s is already owned by another %s controller %s", e.Object, e.Owner.Kind, e.Owner.Name)
}

// SetControllerReference makes owner the controller of obj: it adds (or
// replaces) obj's owner reference to owner, with controller and
// blockOwnerDeletion set. The garbage collector then deletes obj when
// owner goes, and [EnqueueOwner] with OnlyController finds owner from obj.
// It changes obj only; write it to the server after.
//
// It fails with an [*AlreadyOwnedError] when obj has a controller
// reference to another object, and fails when owner has no uid (it was
// not read from the server), or when the scopes do not allow the
// reference: a namespaced owner must be in obj's namespace, and a
// cluster-scoped obj can only have cluster-scoped owners.
func SetControllerReference(owner, obj kube.Object) error {
	ref, err := ownerReference(owner, obj)
	if err != nil {
		return errs.Errorf("set controller reference: %w", err)
	}
	t := true
	ref.Controller, ref.BlockOwnerDeletion = &t, &t
	m := obj.GetObjectMeta()
	for _, r := range m.OwnerReferences {
		if r.IsController() && !sameOwner(r, ref) {
			return errs.Errorf("set controller reference: %w", &AlreadyOwnedError{Object: m.Key(), Owner: r})
		}
	}
	upsertOwnerReference(m, ref)
	return nil
}

// SetOwnerReference adds (or replaces) obj's owner reference to owner, as
// a plain owner: not a controller, not blocking owner deletion. The
// garbage collector deletes obj once all its owners are gone. It fails as
// [SetControllerReference] does, except that other controllers do not
// matter.
func SetOwnerReference(owner, obj kube.Object) error {
	ref, err := ownerReference(owner, obj)
	if err != nil {
		return errs.Errorf("set owner reference: %w", err)
	}
	upsertOwnerReference(obj.GetObjectMeta(), ref)
	return nil
}

// HasControllerReference reports whether obj's controller is owner (by
// group, kind and name; not version).
func HasControllerReference(owner, obj kube.Object) bool {
	gvk, om := owner.GroupVersionKind(), owner.GetObjectMeta()
	want := kube.OwnerReference{APIVersion: gvk.APIVersion(), Kind: gvk.Kind, Name: om.Name}
	for _, r := range obj.GetObjectMeta().OwnerReferences {
		if r.IsController() && sameOwner(r, want) {
			return true
		}
	}
	return false
}

// ownerReference returns the reference to owner that obj may have.
func ownerReference(owner, obj kube.Object) (kube.OwnerReference, error) {
	if owner == nil || obj == nil {
		return kube.OwnerReference{}, errors.New("owner and object must not be nil")
	}
	gvk, om, m := owner.GroupVersionKind(), owner.GetObjectMeta(), obj.GetObjectMeta()
	switch {
	case gvk.Kind == "" || gvk.Version == "":
		return kube.OwnerReference{}, errs.Errorf("owner %T names no kind", owner)
	case om.Name == "":
		return kube.OwnerReference{}, errs.Errorf("owner %s has no name", gvk.Kind)
	case om.UID == "":
		return kube.OwnerReference{}, errs.Errorf("owner %s %s has no uid: read it from the server first", gvk.Kind, om.Key())
	case om.Namespace != "" && m.Namespace == "":
		return kube.OwnerReference{}, errs.Errorf("cluster-scoped object %s cannot have namespaced owner %s %s", m.Name, gvk.Kind, om.Key())
	case om.Namespace != "" && om.Namespace != m.Namespace:
		return kube.OwnerReference{}, errs.Errorf("owner %s %s is in another namespace than object %s", gvk.Kind, om.Key(), m.Key())
	}
	return kube.OwnerReference{APIVersion: gvk.APIVersion(), Kind: gvk.Kind, Name: om.Name, UID: om.UID}, nil
}

// sameOwner reports whether two references name the same object: same
// group, kind and name (controller-runtime's referSameObject).
func sameOwner(a, b kube.OwnerReference) bool {
	ga, _ := kube.ParseAPIVersion(a.APIVersion)
	gb, _ := kube.ParseAPIVersion(b.APIVersion)
	return ga == gb && a.Kind == b.Kind && a.Name == b.Name
}

func upsertOwnerReference(m *kube.ObjectMeta, ref kube.OwnerReference) {
	for i, r := range m.OwnerReferences {
		if sameOwner(r, ref) {
			m.OwnerReferences[i] = ref
			return
		}
	}
	m.OwnerReferences = append(m.OwnerReferences, ref)
}
