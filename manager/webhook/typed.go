// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/kubeloop/kubeloop/internal/jsondec"
	"github.com/kubeloop/kubeloop/kube"
)

// Warnings are messages for the client that made the request; kubectl
// prints them. They are shown whether the request is admitted or not.
type Warnings []string

// Validator decides whether objects of type T may be created, updated or
// deleted. A nil error admits the request. An error denies it: the client
// sees a [*kube.StatusError]'s code, reason and message (return one with
// reason Invalid and field causes to report bad fields), a deadline
// (context.DeadlineExceeded) as 504 Timeout, and any other error's
// message as 403 Forbidden.
//
// The objects are decoded for this call and belong to the method. The
// context ends at the timeout the API server set; [AdmissionRequestFrom]
// gives the rest of the request (user, dry run, subresource).
type Validator[T any] interface {
	ValidateCreate(ctx context.Context, obj *T) (Warnings, error)
	ValidateUpdate(ctx context.Context, oldObj, newObj *T) (Warnings, error)
	ValidateDelete(ctx context.Context, obj *T) (Warnings, error)
}

// Defaulter sets defaults on, or otherwise changes, objects of type T
// being created or updated. It changes obj in place; the API server gets
// a JSON patch of what changed. An error denies the request, as for a
// [Validator].
//
// T may declare only the fields the defaulter needs: the patch is
// computed against the object the API server sent, so fields T does not
// declare are left as they are (see [MutatingFor]).
type Defaulter[T any] interface {
	Default(ctx context.Context, obj *T) error
}

// ValidatorFuncs is a [Validator] made of functions; a nil function
// admits.
type ValidatorFuncs[T any] struct {
	Create func(ctx context.Context, obj *T) (Warnings, error)
	Update func(ctx context.Context, oldObj, newObj *T) (Warnings, error)
	Delete func(ctx context.Context, obj *T) (Warnings, error)
}

// ValidateCreate implements [Validator].
func (f ValidatorFuncs[T]) ValidateCreate(ctx context.Context, obj *T) (Warnings, error) {
	if f.Create == nil {
		return nil, nil
	}
	return f.Create(ctx, obj)
}

// ValidateUpdate implements [Validator].
func (f ValidatorFuncs[T]) ValidateUpdate(ctx context.Context, oldObj, newObj *T) (Warnings, error) {
	if f.Update == nil {
		return nil, nil
	}
	return f.Update(ctx, oldObj, newObj)
}

// ValidateDelete implements [Validator].
func (f ValidatorFuncs[T]) ValidateDelete(ctx context.Context, obj *T) (Warnings, error) {
	if f.Delete == nil {
		return nil, nil
	}
	return f.Delete(ctx, obj)
}

// DefaulterFunc is a [Defaulter] made of a function.
type DefaulterFunc[T any] func(ctx context.Context, obj *T) error

// Default implements [Defaulter].
func (f DefaulterFunc[T]) Default(ctx context.Context, obj *T) error {
	if f == nil {
		return errors.New("webhook.DefaulterFunc is nil")
	}
	return f(ctx, obj)
}

// ValidatingFor returns the handler of a validating admission
// webhook for objects of type T, to register at
// [ValidatingPath] (or with [RegisterValidator]):
//   - CREATE calls ValidateCreate with the object, UPDATE calls
//     ValidateUpdate with the old and new objects, DELETE calls
//     ValidateDelete with the object being deleted (the review's
//     oldObject); CONNECT is admitted without a call.
//   - When T states a kind (its GroupVersionKind method, not one read from
//     apiVersion as for [kube.Unstructured]), a review for another kind is
//     refused with code 400: the webhook configuration is wrong.
//   - The objects are decoded into T as the API server decodes them: keys
//     matched exactly (see [reviewDecoder]), so that a member that is
//     another spelling of a field T declares ("speC" for "spec",
//     "replicaſ" for "replicas", which a custom resource that keeps
//     unknown fields stores as such) is an unknown field, not the field.
//     An object that does not decode into T is refused with code 400; a
//     panic in v with code 500.
func ValidatingFor[T any, PT interface {
	*T
	kube.Object
}](v Validator[T]) *AdmissionHandler {
	want := PT(new(T)).GroupVersionKind()
	dec := reviewDecoder()
	return Admission(func(ctx context.Context, req *AdmissionRequest) AdmissionResponse {
		if err := checkReviewKind(want, req); err != nil {
			return Errored(http.StatusBadRequest, err)
		}
		ctx = context.WithValue(ctx, admissionRequestKey{}, req)
		var warnings Warnings
		var err error
		switch req.Operation {
		case OpCreate:
			obj, derr := decodeReviewObject[T](ctx, dec, req.Object, "object")
			if derr != nil {
				return refuseObject(ctx, derr)
			}
			warnings, err = v.ValidateCreate(ctx, obj)
		case OpUpdate:
			oldObj, derr := decodeReviewObject[T](ctx, dec, req.OldObject, "oldObject")
			if derr != nil {
				return refuseObject(ctx, derr)
			}
			newObj, derr := decodeReviewObject[T](ctx, dec, req.Object, "object")
			if derr != nil {
				return refuseObject(ctx, derr)
			}
			warnings, err = v.ValidateUpdate(ctx, oldObj, newObj)
		case OpDelete:
			obj, derr := decodeReviewObject[T](ctx, dec, req.OldObject, "oldObject")
			if derr != nil {
				return refuseObject(ctx, derr)
			}
			warnings, err = v.ValidateDelete(ctx, obj)
		case OpConnect:
		default:
			return Errored(http.StatusBadRequest, fmt.Errorf("unknown operation %q", req.Operation))
		}
		return Denied(err, warnings)
	})
}

// MutatingFor returns the handler of a mutating admission webhook
// for objects of type T, to register at [MutatingPath] (or with
// [RegisterDefaulter]):
//   - CREATE and UPDATE decode the object into T and call Default; the
//     answer admits the request with a JSON patch of what Default changed
//     (none when nothing changed). DELETE and CONNECT are admitted
//     without a call.
//   - The patch applies to the object as the API server sent it: fields T
//     does not declare are kept, and so are members that only T's typed
//     view has (zero values without omitempty) unless Default changed
//     them. Elements of arrays Default changed in place, or only
//     reordered, keep their undeclared fields too.
//   - The patch takes time linear in the object's size, for an array
//     whose every element changed too, and its work stops when the API
//     server's timeout passes: the review is then denied with 504 Timeout.
//     The API server, whose own deadline is no later (it rounds the
//     timeout it sends up to whole seconds), has stopped waiting by then
//     and applies the webhook's failurePolicy.
//   - Kinds, decoding failures and panics are refused as by
//     [ValidatingFor].
func MutatingFor[T any, PT interface {
	*T
	kube.Object
}](d Defaulter[T]) *AdmissionHandler {
	want := PT(new(T)).GroupVersionKind()
	dec := reviewDecoder()
	return Admission(func(ctx context.Context, req *AdmissionRequest) AdmissionResponse {
		if err := checkReviewKind(want, req); err != nil {
			return Errored(http.StatusBadRequest, err)
		}
		if req.Operation != OpCreate && req.Operation != OpUpdate {
			return Allowed(nil)
		}
		obj, err := decodeReviewObject[T](ctx, dec, req.Object, "object")
		if err != nil {
			return refuseObject(ctx, err)
		}
		before, err := json.Marshal(obj)
		if err != nil {
			return Errored(http.StatusInternalServerError, fmt.Errorf("encode object: %w", err))
		}
		if err := ctx.Err(); err != nil {
			return Denied(fmt.Errorf("encode object: %w", err), nil)
		}
		if err := d.Default(context.WithValue(ctx, admissionRequestKey{}, req), obj); err != nil {
			return Denied(err, nil)
		}
		after, err := json.Marshal(obj)
		if err != nil {
			return Errored(http.StatusInternalServerError, fmt.Errorf("encode defaulted object: %w", err))
		}
		if err := ctx.Err(); err != nil {
			return Denied(fmt.Errorf("encode defaulted object: %w", err), nil)
		}
		ops, err := mutationPatch(ctx, req.Object, before, after)
		if err != nil {
			if ctx.Err() != nil { // out of time: 504 Timeout (see Denied)
				return Denied(fmt.Errorf("make patch: %w", err), nil)
			}
			return Errored(http.StatusInternalServerError, fmt.Errorf("make patch: %w", err))
		}
		resp, err := patched(ops, nil)
		if err != nil {
			return Errored(http.StatusInternalServerError, err)
		}
		return resp
	})
}

// RegisterValidator registers [ValidatingFor](v) on s at the
// [ValidatingPath] of T's kind, and returns that path. T must state
// its kind; for [kube.Unstructured], register the handler at the path of
// the kind yourself. It panics when T states no kind or the path is taken.
func RegisterValidator[T any, PT interface {
	*T
	kube.Object
}](s *Server, v Validator[T]) string {
	path := ValidatingPath(staticKind[T, PT]("register validator"))
	s.Register(path, ValidatingFor[T, PT](v))
	return path
}

// RegisterDefaulter registers [MutatingFor](d) on s at the
// [MutatingPath] of T's kind, and returns that path; see
// [RegisterValidator].
func RegisterDefaulter[T any, PT interface {
	*T
	kube.Object
}](s *Server, d Defaulter[T]) string {
	path := MutatingPath(staticKind[T, PT]("register defaulter"))
	s.Register(path, MutatingFor[T, PT](d))
	return path
}

// staticKind is the kind T states, or a panic.
func staticKind[T any, PT interface {
	*T
	kube.Object
}](what string) kube.GroupVersionKind {
	gvk := PT(new(T)).GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		panic(fmt.Sprintf("webhook: %s: %T states no kind; use Register with ValidatingPath or MutatingPath", what, new(T)))
	}
	return gvk
}

// checkReviewKind refuses a review for another kind than the one T
// states, if it states one.
func checkReviewKind(want kube.GroupVersionKind, req *AdmissionRequest) error {
	if want.Kind == "" {
		return nil
	}
	if req.Kind != want {
		return fmt.Errorf("webhook for %s got a review for %s", want, req.Kind)
	}
	return nil
}

// reviewDecoder returns the decoder of a typed handler's objects: keys
// matched exactly, as the API server and kubeloop's client match them
// (internal/jsondec), where encoding/json folds case. A struct with a
// ",string" field, which no plan serves, goes to json.Unmarshal alone.
// Each handler keeps its own, holding the plans of its type.
func reviewDecoder() *jsondec.Decoder {
	return jsondec.New(jsondec.Options{Fallback: json.Unmarshal})
}

// decodeReviewObject decodes one of the review's objects into a new T by
// dec. It fails with ctx's error when ctx is done once the object is
// decoded.
func decodeReviewObject[T any](ctx context.Context, dec *jsondec.Decoder, raw json.RawMessage, field string) (*T, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, fmt.Errorf("decode %s: the review has none", field)
	}
	obj := new(T)
	if err := dec.Unmarshal(raw, obj); err != nil {
		return nil, fmt.Errorf("decode %s into %T: %w", field, obj, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("decode %s: %w", field, err)
	}
	return obj, nil
}

// refuseObject answers a review whose object decodeReviewObject refused:
// 400, or 504 when the deadline passed (see [Denied]).
func refuseObject(ctx context.Context, err error) AdmissionResponse {
	if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
		return Denied(err, nil)
	}
	return Errored(http.StatusBadRequest, err)
}

type admissionRequestKey struct{}

// AdmissionRequestFrom returns the request being admitted, inside a
// [Validator] or [Defaulter] call (who asks, the operation, the
// subresource, dry run); ok is false elsewhere. It is shared with the
// call and must not be modified.
func AdmissionRequestFrom(ctx context.Context) (req *AdmissionRequest, ok bool) {
	req, ok = ctx.Value(admissionRequestKey{}).(*AdmissionRequest)
	return req, ok
}

// ConversionPath is where a [Conversion] is registered, as
// controller-runtime registers it, and what a CustomResourceDefinition's
// spec.conversion.webhook.clientConfig names.
const ConversionPath = "/convert"

// ValidatingPath is the path controller-runtime gives the validating
// webhook of a kind: "/validate-" then the group with dots replaced by
// dashes, the version and the lowercased kind, joined by dashes:
// /validate-apps-v1-deployment, and /validate--v1-configmap for the core
// group.
func ValidatingPath(gvk kube.GroupVersionKind) string { return kindPath("validate", gvk) }

// MutatingPath is [ValidatingPath] with "/mutate-":
// /mutate-apps-v1-deployment.
func MutatingPath(gvk kube.GroupVersionKind) string { return kindPath("mutate", gvk) }

func kindPath(verb string, gvk kube.GroupVersionKind) string {
	return "/" + verb + "-" + strings.ReplaceAll(gvk.Group, ".", "-") + "-" + gvk.Version + "-" + strings.ToLower(gvk.Kind)
}
