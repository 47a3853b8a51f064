// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/internal/webhook"
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
// declare are left as they are (see [MutatingWebhookFor]).
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
func (f DefaulterFunc[T]) Default(ctx context.Context, obj *T) error { return f(ctx, obj) }

// ValidatingWebhookFor returns the handler of a validating admission
// webhook for objects of type T, to register at
// [ValidatingWebhookPath] (or with [RegisterValidator]):
//   - CREATE calls ValidateCreate with the object, UPDATE calls
//     ValidateUpdate with the old and new objects, DELETE calls
//     ValidateDelete with the object being deleted (the review's
//     oldObject); CONNECT is admitted without a call.
//   - When T states a kind (its GroupVersionKind method, not one read from
//     apiVersion as for [kube.Unstructured]), a review for another kind is
//     refused with code 400: the webhook configuration is wrong.
//   - An object that does not decode into T is refused with code 400; a
//     panic in v with code 500.
func ValidatingWebhookFor[T any, PT interface {
	*T
	kube.Object
}](v Validator[T]) http.Handler {
	want := PT(new(T)).GroupVersionKind()
	return webhook.Admission(func(ctx context.Context, req *webhook.AdmissionRequest) webhook.AdmissionResponse {
		if err := checkReviewKind(want, req); err != nil {
			return webhook.Errored(http.StatusBadRequest, err)
		}
		ctx = context.WithValue(ctx, admissionRequestKey{}, req)
		var warnings Warnings
		var err error
		switch req.Operation {
		case webhook.OpCreate:
			obj, derr := decodeReviewObject[T](req.Object, "object")
			if derr != nil {
				return webhook.Errored(http.StatusBadRequest, derr)
			}
			warnings, err = v.ValidateCreate(ctx, obj)
		case webhook.OpUpdate:
			oldObj, derr := decodeReviewObject[T](req.OldObject, "oldObject")
			if derr != nil {
				return webhook.Errored(http.StatusBadRequest, derr)
			}
			newObj, derr := decodeReviewObject[T](req.Object, "object")
			if derr != nil {
				return webhook.Errored(http.StatusBadRequest, derr)
			}
			warnings, err = v.ValidateUpdate(ctx, oldObj, newObj)
		case webhook.OpDelete:
			obj, derr := decodeReviewObject[T](req.OldObject, "oldObject")
			if derr != nil {
				return webhook.Errored(http.StatusBadRequest, derr)
			}
			warnings, err = v.ValidateDelete(ctx, obj)
		case webhook.OpConnect:
		default:
			return webhook.Errored(http.StatusBadRequest, fmt.Errorf("unknown operation %q", req.Operation))
		}
		return webhook.Denied(err, warnings)
	})
}

// MutatingWebhookFor returns the handler of a mutating admission webhook
// for objects of type T, to register at [MutatingWebhookPath] (or with
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
//     [ValidatingWebhookFor].
func MutatingWebhookFor[T any, PT interface {
	*T
	kube.Object
}](d Defaulter[T]) http.Handler {
	want := PT(new(T)).GroupVersionKind()
	return webhook.Admission(func(ctx context.Context, req *webhook.AdmissionRequest) webhook.AdmissionResponse {
		if err := checkReviewKind(want, req); err != nil {
			return webhook.Errored(http.StatusBadRequest, err)
		}
		if req.Operation != webhook.OpCreate && req.Operation != webhook.OpUpdate {
			return webhook.Allowed(nil)
		}
		obj, err := decodeReviewObject[T](req.Object, "object")
		if err != nil {
			return webhook.Errored(http.StatusBadRequest, err)
		}
		before, err := json.Marshal(obj)
		if err != nil {
			return webhook.Errored(http.StatusInternalServerError, fmt.Errorf("encode object: %w", err))
		}
		if err := d.Default(context.WithValue(ctx, admissionRequestKey{}, req), obj); err != nil {
			return webhook.Denied(err, nil)
		}
		after, err := json.Marshal(obj)
		if err != nil {
			return webhook.Errored(http.StatusInternalServerError, fmt.Errorf("encode defaulted object: %w", err))
		}
		ops, err := webhook.MutationPatch(ctx, req.Object, before, after)
		if err != nil {
			if ctx.Err() != nil { // out of time: 504 Timeout (see webhook.Denied)
				return webhook.Denied(fmt.Errorf("make patch: %w", err), nil)
			}
			return webhook.Errored(http.StatusInternalServerError, fmt.Errorf("make patch: %w", err))
		}
		resp, err := webhook.Patched(ops, nil)
		if err != nil {
			return webhook.Errored(http.StatusInternalServerError, err)
		}
		return resp
	})
}

// RegisterValidator registers [ValidatingWebhookFor](v) on s at the
// [ValidatingWebhookPath] of T's kind, and returns that path. T must state
// its kind; for [kube.Unstructured], register the handler at the path of
// the kind yourself. It panics when T states no kind or the path is taken.
func RegisterValidator[T any, PT interface {
	*T
	kube.Object
}](s *WebhookServer, v Validator[T]) string {
	path := ValidatingWebhookPath(staticKind[T, PT]("register validator"))
	s.Register(path, ValidatingWebhookFor[T, PT](v))
	return path
}

// RegisterDefaulter registers [MutatingWebhookFor](d) on s at the
// [MutatingWebhookPath] of T's kind, and returns that path; see
// [RegisterValidator].
func RegisterDefaulter[T any, PT interface {
	*T
	kube.Object
}](s *WebhookServer, d Defaulter[T]) string {
	path := MutatingWebhookPath(staticKind[T, PT]("register defaulter"))
	s.Register(path, MutatingWebhookFor[T, PT](d))
	return path
}

// staticKind is the kind T states, or a panic.
func staticKind[T any, PT interface {
	*T
	kube.Object
}](what string) kube.GroupVersionKind {
	gvk := PT(new(T)).GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		panic(fmt.Sprintf("manager: %s: %T states no kind; use Register with ValidatingWebhookPath or MutatingWebhookPath", what, new(T)))
	}
	return gvk
}

// checkReviewKind refuses a review for another kind than the one T
// states, if it states one.
func checkReviewKind(want kube.GroupVersionKind, req *webhook.AdmissionRequest) error {
	if want.Kind == "" {
		return nil
	}
	got := kube.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind}
	if got != want {
		return fmt.Errorf("webhook for %s got a review for %s", want, got)
	}
	return nil
}

// decodeReviewObject decodes one of the review's objects into a new T.
func decodeReviewObject[T any](raw json.RawMessage, field string) (*T, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, fmt.Errorf("decode %s: the review has none", field)
	}
	obj := new(T)
	if err := json.Unmarshal(raw, obj); err != nil {
		return nil, fmt.Errorf("decode %s into %T: %w", field, obj, err)
	}
	return obj, nil
}

// AdmissionRequest is what an admission review says besides the objects:
// who asks for what. Read it in a [Validator] or [Defaulter] with
// [AdmissionRequestFrom].
type AdmissionRequest struct {
	// UID identifies the call.
	UID string
	// Kind and Resource are what the object is, in the version the
	// webhook is registered for; SubResource is "status", "scale"... or
	// empty.
	Kind        kube.GroupVersionKind
	Resource    kube.GroupVersionResource
	SubResource string
	// RequestKind and RequestResource are what the client asked for;
	// they differ from Kind and Resource when the API server converted
	// the object for a webhook with matchPolicy Equivalent.
	RequestKind     kube.GroupVersionKind
	RequestResource kube.GroupVersionResource
	// Name is empty on a CREATE with generateName.
	Name, Namespace string
	// Operation is "CREATE", "UPDATE", "DELETE" or "CONNECT".
	Operation string
	// User, UserUID, Groups and Extra are the requester's identity.
	User    string
	UserUID string
	Groups  []string
	Extra   map[string][]string
	// DryRun is set when the change will not be persisted: a webhook with
	// side effects must not act on it.
	DryRun bool
	// Options is the operation's CreateOptions, UpdateOptions or
	// DeleteOptions as JSON.
	Options json.RawMessage
}

type admissionRequestKey struct{}

// AdmissionRequestFrom returns the request being admitted, inside a
// [Validator] or [Defaulter] call; ok is false elsewhere. The slices and
// map are shared with the call and must not be modified.
func AdmissionRequestFrom(ctx context.Context) (req AdmissionRequest, ok bool) {
	r, ok := ctx.Value(admissionRequestKey{}).(*webhook.AdmissionRequest)
	if !ok {
		return AdmissionRequest{}, false
	}
	req = AdmissionRequest{
		UID:         r.UID,
		Kind:        kube.GroupVersionKind{Group: r.Kind.Group, Version: r.Kind.Version, Kind: r.Kind.Kind},
		Resource:    kube.GroupVersionResource{Group: r.Resource.Group, Version: r.Resource.Version, Resource: r.Resource.Resource},
		SubResource: r.SubResource,
		Name:        r.Name, Namespace: r.Namespace,
		Operation: r.Operation,
		User:      r.UserInfo.Username, UserUID: r.UserInfo.UID, Groups: r.UserInfo.Groups, Extra: r.UserInfo.Extra,
		DryRun:  r.DryRun != nil && *r.DryRun,
		Options: r.Options,
	}
	req.RequestKind, req.RequestResource = req.Kind, req.Resource
	if k := r.RequestKind; k != nil {
		req.RequestKind = kube.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
	}
	if rr := r.RequestResource; rr != nil {
		req.RequestResource = kube.GroupVersionResource{Group: rr.Group, Version: rr.Version, Resource: rr.Resource}
	}
	return req, true
}
