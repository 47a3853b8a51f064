// SPDX-License-Identifier: Apache-2.0

package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file calls the webhooks of one request: the mutating ones in
// order, then the validating ones all at once, and turns what they answer
// into what the real server answers its client.

// Mutate calls the mutating webhooks among hooks (in [Sort]'s order) that
// match req, each on the object as the ones before it left it, and once
// more those with reinvocationPolicy IfNeeded that a later webhook's
// change came after. It answers the object (req.Object when no webhook
// changed it; a new value otherwise, which the caller owns), whether it
// changed, the warnings in the order given, and the error to answer the
// client with.
func Mutate(ctx context.Context, hooks []Webhook, resolve Resolver, req *Request) (obj, bool, []string, *kube.StatusError) {
	r := *req
	changes := 0
	seenAt := map[int]int{} // index in hooks of a webhook called: changes after its call
	var warnings []string
	call := func(i int) *kube.StatusError {
		w := &hooks[i]
		if !w.Mutating || !w.Matches(&r) {
			return nil
		}
		resp, err := callHook(ctx, w, resolve, &r)
		if resp == nil {
			return err
		}
		warnings = append(warnings, resp.Warnings...)
		if len(resp.Patch) > 0 {
			next, err := applyPatch(w, r.Object, resp.Patch)
			if err != nil {
				return err
			}
			if !jsonpatch.Equal(next, r.Object) {
				r.Object = next
				changes++
			}
		}
		seenAt[i] = changes
		return nil
	}
	for i := range hooks {
		if err := call(i); err != nil {
			return nil, false, warnings, err
		}
	}
	if changes > 0 {
		last := changes
		for i := range hooks {
			if at, called := seenAt[i]; called && hooks[i].Reinvoke && at < last {
				if err := call(i); err != nil {
					return nil, false, warnings, err
				}
			}
		}
	}
	return r.Object, changes > 0, warnings, nil
}

// Validate calls the validating webhooks among hooks that match req, all
// at once as the real server does. It answers their warnings and the
// error of the first one in [Sort]'s order that refused or failed (the
// real server answers whichever it heard of first).
func Validate(ctx context.Context, hooks []Webhook, resolve Resolver, req *Request) ([]string, *kube.StatusError) {
	type answer struct {
		warnings []string
		err      *kube.StatusError
	}
	answers := make([]answer, len(hooks))
	var wg sync.WaitGroup
	for i := range hooks {
		w := &hooks[i]
		if w.Mutating || !w.Matches(req) {
			continue
		}
		wg.Go(func() {
			resp, err := callHook(ctx, w, resolve, req)
			if resp != nil {
				answers[i] = answer{warnings: resp.Warnings}
			} else {
				answers[i] = answer{err: err}
			}
		})
	}
	wg.Wait()
	var warnings []string
	var first *kube.StatusError
	for _, a := range answers {
		warnings = append(warnings, a.warnings...)
		if first == nil {
			first = a.err
		}
	}
	return warnings, first
}

// callHook sends req to w. It answers the response of a webhook that
// allowed the request; otherwise no response and the error for the
// client, or neither when failurePolicy Ignore lets a failed call pass.
func callHook(ctx context.Context, w *Webhook, resolve Resolver, req *Request) (*response, *kube.StatusError) {
	if req.DryRun && w.SideEffects != "None" && w.SideEffects != "NoneOnDryRun" {
		return nil, &kube.StatusError{Status: kube.Status{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "Status"},
			Status: "Failure", Code: http.StatusBadRequest, Reason: "BadRequest",
			Message: fmt.Sprintf("admission webhook %q does not support dry run", w.Name)}}
	}
	resp, err := exchange(ctx, w, resolve, req)
	var ce *callError
	switch {
	case errors.As(err, &ce) && w.FailurePolicy == "Ignore":
		return &response{Allowed: true}, nil
	case err != nil:
		return nil, internalError(err.Error())
	case !resp.Allowed:
		return nil, denied(w, resp.Status)
	}
	return resp, nil
}

// exchange sends the review and reads the answer; every failure is a
// *callError.
func exchange(ctx context.Context, w *Webhook, resolve Resolver, req *Request) (*response, error) {
	apiVersion, err := reviewVersion(w)
	if err != nil {
		return nil, &callError{hook: w.Name, reason: err}
	}
	uid := newUID()
	body, err := Post(ctx, w, resolve, review(apiVersion, req, uid))
	if err != nil {
		return nil, &callError{hook: w.Name, reason: err}
	}
	resp, err := decodeResponse(apiVersion, uid, body, w.Mutating)
	if err != nil {
		return nil, &callError{hook: w.Name, reason: fmt.Errorf("received invalid webhook response: %w", err)}
	}
	return resp, nil
}

// applyPatch applies a mutating webhook's JSON patch to o. A patch of an
// operation without an object (DELETE) is refused as the real server
// refuses it; a patch that does not apply is an internal error.
func applyPatch(w *Webhook, o obj, patch []byte) (obj, *kube.StatusError) {
	ops, err := jsonpatch.ParseOperations(patch)
	if err != nil {
		return nil, internalError(err.Error())
	}
	if len(ops) == 0 {
		return o, nil
	}
	if o == nil {
		return nil, internalError(fmt.Sprintf("admission webhook %q attempted to modify the object, which is not supported for this operation", w.Name))
	}
	v, err := jsonpatch.ApplyValue(o, ops)
	if err == nil {
		v, err = unstructured.ExactNumbers(v)
	}
	if err != nil {
		return nil, internalError(err.Error())
	}
	next, ok := v.(obj)
	if !ok {
		return nil, internalError(fmt.Sprintf("admission webhook %q patched the object into something other than an object", w.Name))
	}
	return next, nil
}
