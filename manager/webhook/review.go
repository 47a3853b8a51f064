// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"encoding/json"

	"github.com/kubeloop/kubeloop/kube"
)

// The API versions of the reviews. v1beta1 reviews have the same shape as
// v1 ones; a review is answered in the version it was asked in.
const (
	AdmissionV1       = "admission.k8s.io/v1"
	AdmissionV1beta1  = "admission.k8s.io/v1beta1"
	ConversionV1      = "apiextensions.k8s.io/v1"
	ConversionV1beta1 = "apiextensions.k8s.io/v1beta1"
)

// Operations an [AdmissionRequest] carries.
const (
	OpCreate  = "CREATE"
	OpUpdate  = "UPDATE"
	OpDelete  = "DELETE"
	OpConnect = "CONNECT"
)

// PatchTypeJSONPatch is the only patch type the API server accepts.
const PatchTypeJSONPatch = "JSONPatch"

// AdmissionReview is an admission.k8s.io/v1 AdmissionReview: the API server
// sends one with Request set and expects one back with Response set.
type AdmissionReview struct {
	APIVersion string             `json:"apiVersion,omitempty"`
	Kind       string             `json:"kind,omitempty"`
	Request    *AdmissionRequest  `json:"request,omitempty"`
	Response   *AdmissionResponse `json:"response,omitempty"`
}

// UserInfo is the user who made the request.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// AdmissionRequest is the request of an AdmissionReview: who asks for
// what. A handler made with [Admission] gets it as its argument; a
// [Validator] or [Defaulter] reads it with [AdmissionRequestFrom].
//
// Kinds and resources decode from the review's {"group", "version",
// "kind"} objects into kube's types (encoding/json matches the field names
// without regard to case).
type AdmissionRequest struct {
	// UID identifies this call; the response must carry it back.
	UID string `json:"uid"`
	// Kind and Resource are what the object is, in the version the
	// webhook is registered for; SubResource is "status", "scale"... or
	// empty.
	Kind        kube.GroupVersionKind     `json:"kind"`
	Resource    kube.GroupVersionResource `json:"resource"`
	SubResource string                    `json:"subResource,omitempty"`
	// RequestKind, RequestResource and RequestSubResource are what the
	// client asked for; they differ from the above when the API server
	// converted the object for a webhook with matchPolicy Equivalent.
	// The API server (admission.k8s.io/v1) always sends them.
	RequestKind        *kube.GroupVersionKind     `json:"requestKind,omitempty"`
	RequestResource    *kube.GroupVersionResource `json:"requestResource,omitempty"`
	RequestSubResource string                     `json:"requestSubResource,omitempty"`
	// Name is empty on a CREATE with generateName.
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// Operation is one of the Op constants.
	Operation string `json:"operation"`
	// UserInfo is the requester's identity.
	UserInfo UserInfo `json:"userInfo"`
	// Object is the new object (CREATE, UPDATE) or the options of a
	// CONNECT; null for DELETE. OldObject is the existing object (UPDATE,
	// DELETE).
	Object    json.RawMessage `json:"object,omitempty"`
	OldObject json.RawMessage `json:"oldObject,omitempty"`
	// DryRun is set when the change will not be persisted: a webhook with
	// side effects must not act on it.
	DryRun *bool `json:"dryRun,omitempty"`
	// Options is the CreateOptions, UpdateOptions or DeleteOptions of the
	// call, as JSON.
	Options json.RawMessage `json:"options,omitempty"`
}

// AdmissionResponse is the response of an AdmissionReview.
type AdmissionResponse struct {
	UID     string `json:"uid"`
	Allowed bool   `json:"allowed"`
	// Result says why a request is denied; the API server shows its
	// message and code to the client.
	Result *kube.Status `json:"status,omitempty"`
	// Patch is a JSON patch (RFC 6902) for the API server to apply to the
	// object; encoding/json writes it in base64, as the wire wants.
	Patch     []byte `json:"patch,omitempty"`
	PatchType string `json:"patchType,omitempty"`
	// AuditAnnotations are added to the audit record of the call.
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	// Warnings are shown to the client (kubectl prints them).
	Warnings []string `json:"warnings,omitempty"`
}

// ConversionReview is an apiextensions.k8s.io/v1 ConversionReview.
type ConversionReview struct {
	APIVersion string              `json:"apiVersion,omitempty"`
	Kind       string              `json:"kind,omitempty"`
	Request    *ConversionRequest  `json:"request,omitempty"`
	Response   *ConversionResponse `json:"response,omitempty"`
}

// ConversionRequest asks for objects in another version of their kind.
type ConversionRequest struct {
	UID               string            `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
}

// ConversionResponse carries the converted objects, in the order of the
// request, or a failure.
type ConversionResponse struct {
	UID              string            `json:"uid"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects"`
	// Result.Status is "Success" or "Failure" (with a Message).
	Result kube.Status `json:"result"`
}
