// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/internal/webhook"
	"github.com/kubeloop/kubeloop/kube"
)

// ConversionWebhook converts custom resources between the versions their
// CustomResourceDefinition serves, for the API server
// (spec.conversion.strategy: Webhook). Register it at
// [ConversionWebhookPath]. The zero value is ready to use; it is safe for
// concurrent use, and kinds may be added while it serves.
//
// Versions convert hub and spoke: for each kind, one version is the hub,
// and every other version (a spoke) converts to and from it. A spoke
// converts to another spoke through the hub, so n versions need n-1
// pairs of functions, not n².
//
//   - Objects come back in the order they were sent, with apiVersion set
//     to the desired version and kind unchanged; an object already in the
//     desired version comes back untouched.
//   - Before a conversion function runs, the destination already holds
//     the source's metadata, so a function converts spec and status only.
//     (The API server keeps the original metadata anyway, except labels
//     and annotations, which a function may change.)
//   - One object that fails (an error or a panic in a function, a kind or
//     version nobody added) fails the review, with a message naming the
//     object; the API server then fails the client's request.
//   - Bounded memory: a review holds about twice its size while it is
//     converted. The API server sends one object per review; a review
//     larger than MaxRequestBytes is refused with 413, and one that would
//     take the reviews being converted at once past MaxInFlightBytes with
//     429 and Retry-After (the API server retries those, up to 10 times).
//     A refused review fails the client's request with the refusal's
//     message.
//
// A converted object is what the API server stores when it converts to
// the storage version: a typed conversion ([AddConversionSpoke]) drops
// every field its Go types do not declare. Use types that declare the
// whole schema, or [ConversionWebhook.AddUnstructuredSpoke], which keeps
// everything.
type ConversionWebhook struct {
	// MaxRequestBytes bounds one review's body. Zero means 8 MiB, which
	// holds any one object the API server stores (1.5 MiB in etcd) or
	// accepts in a write (3 MiB). Set it before the webhook serves.
	MaxRequestBytes int64
	// MaxInFlightBytes bounds the bodies of the reviews being converted
	// at once. Zero means four times MaxRequestBytes (32 MiB by
	// default); it is never less than MaxRequestBytes. Set it before the
	// webhook serves.
	MaxInFlightBytes int64

	c webhook.Conversions
}

// ServeHTTP answers ConversionReviews (apiextensions.k8s.io/v1).
func (c *ConversionWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	inFlight := c.MaxInFlightBytes
	if inFlight <= 0 && c.MaxRequestBytes > 0 {
		inFlight = 4 * c.MaxRequestBytes
	}
	c.c.Serve(w, r, webhook.Limits{RequestBytes: c.MaxRequestBytes, InFlightBytes: inFlight})
}

// ConversionSpoke is implemented by a pointer to a spoke version's type,
// for the hub version's type Hub. ConvertTo fills hub from the receiver;
// ConvertFrom fills the receiver from hub. Both find the metadata already
// copied (see [ConversionWebhook]).
type ConversionSpoke[Hub any] interface {
	kube.Object
	ConvertTo(hub *Hub) error
	ConvertFrom(hub *Hub) error
}

// AddConversionSpoke adds to c the conversion of the kind of Spoke and Hub
// between their two versions:
//
//	manager.AddConversionSpoke[WidgetV1beta1, WidgetV1](conv)
//
// Both types must state their kind (a GroupVersionKind method), with the
// same group and kind and different versions. Every spoke of a kind must
// name the same hub; adding a spoke twice is an error.
func AddConversionSpoke[Spoke, Hub any, PS interface {
	*Spoke
	ConversionSpoke[Hub]
}, PH interface {
	*Hub
	kube.Object
}](c *ConversionWebhook) error {
	spoke, hub := PS(new(Spoke)).GroupVersionKind(), PH(new(Hub)).GroupVersionKind()
	if spoke.Kind == "" || hub.Kind == "" {
		return fmt.Errorf("add conversion spoke %T: %T and %T must both state their kind", new(Spoke), new(Spoke), new(Hub))
	}
	if spoke.Group != hub.Group || spoke.Kind != hub.Kind {
		return fmt.Errorf("add conversion spoke %T: spoke %s and hub %s are not the same kind", new(Spoke), spoke, hub)
	}
	toHub := func(raw []byte) ([]byte, error) {
		s, h := new(Spoke), new(Hub)
		if err := json.Unmarshal(raw, s); err != nil {
			return nil, fmt.Errorf("decode into %T: %w", s, err)
		}
		*PH(h).GetObjectMeta() = *PS(s).GetObjectMeta()
		if err := PS(s).ConvertTo(h); err != nil {
			return nil, err
		}
		return json.Marshal(h)
	}
	fromHub := func(raw []byte) ([]byte, error) {
		s, h := new(Spoke), new(Hub)
		if err := json.Unmarshal(raw, h); err != nil {
			return nil, fmt.Errorf("decode into %T: %w", h, err)
		}
		*PS(s).GetObjectMeta() = *PH(h).GetObjectMeta()
		if err := PS(s).ConvertFrom(h); err != nil {
			return nil, err
		}
		return json.Marshal(s)
	}
	return c.c.AddSpoke(hub.Group, hub.Kind, hub.Version, spoke.Version, webhook.Spoke{ToHub: toHub, FromHub: fromHub})
}

// AddUnstructuredSpoke adds the conversion of hub's kind between version
// spokeVersion and hub's version, on [kube.Unstructured] objects, which
// keep every field. toHub fills dst (the hub version) from src (the spoke
// version); fromHub fills dst (the spoke version) from src (the hub
// version). Each dst arrives with src's metadata and the right apiVersion
// and kind. The rules of [AddConversionSpoke] apply.
func (c *ConversionWebhook) AddUnstructuredSpoke(hub kube.GroupVersionKind, spokeVersion string, toHub, fromHub func(src, dst *kube.Unstructured) error) error {
	if toHub == nil || fromHub == nil {
		return fmt.Errorf("add conversion spoke %s of %s: toHub and fromHub must both be set", spokeVersion, hub.Kind)
	}
	spoke := kube.GroupVersionKind{Group: hub.Group, Version: spokeVersion, Kind: hub.Kind}
	convert := func(fn func(src, dst *kube.Unstructured) error, to kube.GroupVersionKind) webhook.ConvertFunc {
		return func(raw []byte) ([]byte, error) {
			var src kube.Unstructured
			if err := json.Unmarshal(raw, &src); err != nil {
				return nil, fmt.Errorf("decode object: %w", err)
			}
			dst := &kube.Unstructured{ObjectMeta: src.ObjectMeta}
			dst.SetGroupVersionKind(to)
			if err := fn(&src, dst); err != nil {
				return nil, err
			}
			return json.Marshal(dst)
		}
	}
	return c.c.AddSpoke(hub.Group, hub.Kind, hub.Version, spokeVersion,
		webhook.Spoke{ToHub: convert(toHub, hub), FromHub: convert(fromHub, spoke)})
}
