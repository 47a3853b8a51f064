// SPDX-License-Identifier: Apache-2.0

package admission

import (
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file puts the webhooks around a client's write of one object
// (create, update and patch, status included, and apply; [AdmitDelete]
// does DELETE). A write with webhooks goes in three steps, since no
// webhook is called with the server's lock held:
//
//  1. under the lock, a dry run of the write gives the object as it would
//     be stored (defaulted, with managedFields), which the mutating
//     webhooks are sent (without uid and creationTimestamp on a create,
//     as the real server sends it; the object as sent when the dry run
//     found it invalid, as a mutating webhook may mend it);
//  2. if they changed it, a dry run of writing their object gives what
//     the validating webhooks are sent;
//  3. under the lock again, the write is made for real, unless the object
//     changed since step 1: then the caller starts over, as the real
//     server's update retries on a conflict.
//
// A write without webhook configurations takes the lock once.

// Write is a client's write of one object as [Admit] sees it: the
// server's write, under its lock. Methods ending in Locked are called
// inside Lock. R is a stored state of the object, compared by identity
// to tell whether it changed (the zero R for none); Out is what a write
// answers.
type Write[R comparable, Out any] interface {
	// Lock runs fn with the server's lock held.
	Lock(fn func())
	// CurrentLocked is the stored object written to.
	CurrentLocked() R
	// BypassLocked makes the write of o at once when no webhook is
	// called for it (the server's own writes, webhook configurations)
	// and reports whether it did.
	BypassLocked(o map[string]any) (Out, *kube.StatusError, bool)
	// HooksLocked returns the configured webhooks and the write's
	// subresource ("" for the object).
	HooksLocked() ([]Webhook, string)
	// RequestLocked is the review's request for the write but its
	// object; create says the write creates, prev is the stored object.
	RequestLocked(create bool, prev R) *Request
	// StoreLocked writes o, or when m is set what the mutating webhooks
	// made of it; when dry, as a dry run on a copy of o.
	StoreLocked(o map[string]any, m *Mutation, dry bool) (Out, *kube.StatusError)
	// Sent is the object out stored, as a webhook is sent it (for a
	// create, without what the server generates when forMutation). It is
	// called without the lock.
	Sent(out Out, forMutation bool) map[string]any
	// PinUID makes every step of the write give the object the same uid,
	// should it create it (create: the request is a create).
	PinUID(create bool)
	// PinManaged makes the write store the managedFields of out, its dry
	// run, whatever the mutating webhooks made of the object.
	PinManaged(out Out)
	// Caller is how the write's webhooks are called.
	Caller() Caller
	// IsApply says the write is a server-side apply.
	IsApply() bool
}

// Mutation is what the mutating webhooks made of a write's object.
type Mutation struct {
	Object map[string]any
	// Create says the write creates the object.
	Create bool
	// DryRan says the webhooks were sent the dry run of the client's
	// write, whose managedFields the write keeps.
	DryRan bool
}

// Admit makes w's write of o, calling the webhooks around it. create
// says the request is a create (POST); otherwise it creates when the
// object is missing.
func Admit[R comparable, Out any](w Write[R, Out], create bool, o map[string]any) (Out, *kube.StatusError) {
	var none R
	for {
		out, stale, err := Attempt(w, create, none, o)
		if !stale {
			return out, err
		}
	}
}

// Attempt is one attempt of [Admit]. base, when not the zero R, is the
// stored object o was computed from (a patch's). stale says the stored
// object changed (from base, or while the webhooks were called): nothing
// was written and the caller starts over.
func Attempt[R comparable, Out any](w Write[R, Out], create bool, base R, o map[string]any) (out Out, stale bool, err *kube.StatusError) {
	var none R
	var hooks []Webhook
	slow := false
	w.Lock(func() {
		if base != none && w.CurrentLocked() != base {
			stale = true
			return
		}
		var done bool
		if out, err, done = w.BypassLocked(o); done {
			return
		}
		var sub string
		hooks, sub = w.HooksLocked()
		if sub != "" && sub != "status" && len(hooks) > 0 {
			err = unsupportedSubresource(w, o, hooks)
		}
		if slow = len(hooks) > 0 && err == nil && (sub == "" || sub == "status"); !slow && err == nil {
			out, err = w.StoreLocked(o, nil, false)
		}
	})
	if !slow {
		return out, stale, err
	}
	return callWebhooks(w, create, base, o, hooks)
}

// callWebhooks is the write of Attempt when webhooks are configured.
func callWebhooks[R comparable, Out any](w Write[R, Out], create bool, base R, o map[string]any, hooks []Webhook) (out Out, stale bool, err *kube.StatusError) {
	var none, prev R
	w.PinUID(create)
	var req *Request
	var candidate Out
	var dryErr *kube.StatusError
	w.Lock(func() {
		prev = w.CurrentLocked()
		candidate, dryErr = w.StoreLocked(o, nil, true)
		req = w.RequestLocked(create || prev == none, prev)
		if req.Name == "" {
			req.Name = unstructured.String(unstructured.Metadata(o), "name")
		}
	})
	if base != none && prev != base {
		return out, true, nil
	}
	switch {
	case dryErr == nil:
		req.Object = w.Sent(candidate, req.Operation == "CREATE")
		if create && req.Name == "" { // generateName: keep the name it got
			unstructured.Metadata(o)["name"] = unstructured.String(unstructured.Metadata(req.Object), "name")
		}
	case w.IsApply() || dryErr.Status.Reason != kube.ReasonInvalid:
		return out, false, dryErr
	default: // a mutating webhook may mend what is invalid
		req.Object = unstructured.DeepCopy(o).(obj)
		if create {
			w.Caller().nullCreationTimestamp(req.Object)
		}
	}
	c := w.Caller()
	ctx, cancel := c.context()
	defer cancel()
	mutated, changed, err := c.mutate(ctx, hooks, req)
	if err != nil {
		return out, false, err
	}
	var m *Mutation
	switch {
	case changed:
		if dryErr == nil {
			w.PinManaged(candidate)
		}
		m = &Mutation{Object: mutated, Create: req.Operation == "CREATE", DryRan: dryErr == nil}
		if w.Lock(func() { candidate, err = w.StoreLocked(o, m, true) }); err != nil {
			return out, false, err
		}
	case dryErr != nil:
		return out, false, dryErr
	}
	req.Object = w.Sent(candidate, false)
	if err = c.validate(ctx, hooks, req); err != nil {
		return out, false, err
	}
	w.Lock(func() {
		if stale = w.CurrentLocked() != prev; !stale {
			out, err = w.StoreLocked(o, m, false)
		}
	})
	return out, stale, err
}

// unsupportedSubresource refuses a write to a subresource kubetest calls
// no webhook for (scale) when a webhook matches it, rather than leave
// the webhook out silently.
func unsupportedSubresource[R comparable, Out any](w Write[R, Out], o map[string]any, hooks []Webhook) *kube.StatusError {
	req := w.RequestLocked(false, w.CurrentLocked())
	req.Object = o
	for i := range hooks {
		if hooks[i].Matches(req) {
			return apierr.New(http.StatusInternalServerError, kube.ReasonInternalError,
				fmt.Sprintf("kubetest does not call admission webhooks for %s/%s: webhook %q matches this request (see DIFFERENCES.md)",
					req.Resource, req.Subresource, hooks[i].Name), nil)
		}
	}
	return nil
}

// Deletion is a client's DELETE of one object as [AdmitDelete] sees it.
// Methods ending in Locked are called inside Lock.
type Deletion[R comparable] interface {
	// Lock runs fn with the server's lock held.
	Lock(fn func())
	// CurrentLocked is the stored object to delete.
	CurrentLocked() R
	// DeleteHooksLocked returns the webhooks to call before deleting
	// prev: none for the server's own deletes, those of webhook
	// configurations, and a missing object.
	DeleteHooksLocked(prev R) []Webhook
	// RequestLocked is the review's request for the write (create false)
	// but its operation and options.
	RequestLocked(create bool, prev R) *Request
	// Caller is how the webhooks are called.
	Caller() Caller
}

// AdmitDelete deletes the object with del (which the lock is held for,
// given the stored object) after the webhooks for DELETE have admitted
// it: the mutating ones, which may not change anything, then the
// validating ones, all sent the stored object as oldObject and what
// options returns (called only when there are webhooks) as the review's
// options. If the object changed meanwhile, it starts over.
func AdmitDelete[R comparable](d Deletion[R], options func() map[string]any, del func(prev R) (R, bool, *kube.StatusError)) (rec R, gone bool, err *kube.StatusError) {
	for {
		var prev R
		var hooks []Webhook
		var req *Request
		d.Lock(func() {
			prev = d.CurrentLocked()
			if hooks = d.DeleteHooksLocked(prev); len(hooks) == 0 {
				rec, gone, err = del(prev)
				return
			}
			req = d.RequestLocked(false, prev)
			req.Operation, req.Options = "DELETE", options()
		})
		if len(hooks) == 0 {
			return rec, gone, err
		}
		if _, _, err = d.Caller().Review(hooks, req); err != nil {
			var none R
			return none, false, err
		}
		stale := false
		d.Lock(func() {
			if stale = d.CurrentLocked() != prev; !stale {
				rec, gone, err = del(prev)
			}
		})
		if !stale {
			return rec, gone, err
		}
	}
}
