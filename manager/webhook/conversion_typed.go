// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"encoding/json"
	"fmt"

	"github.com/kubeloop/kubeloop/kube"
)

// Spoke is implemented by a pointer to a spoke version's type,
// for the hub version's type Hub. ConvertTo fills hub from the receiver;
// ConvertFrom fills the receiver from hub. Both find the metadata already
// copied (see [Conversion]).
type Spoke[Hub any] interface {
	kube.Object
	ConvertTo(hub *Hub) error
	ConvertFrom(hub *Hub) error
}

// AddSpoke adds to c the conversion of the kind of S (a spoke) and Hub
// between their two versions:
//
//	webhook.AddSpoke[WidgetV1beta1, WidgetV1](conv)
//
// Both types must state their kind (a GroupVersionKind method), with the
// same group and kind and different versions. Every spoke of a kind must
// name the same hub; adding a spoke twice is an error. Objects are
// decoded with keys matched exactly, as the API server matches them: a
// member that is another spelling of a field ("statuſ" for "status",
// which a custom resource that keeps unknown fields stores as such) is
// an unknown field, not converted into the field.
func AddSpoke[S, Hub any, PS interface {
	*S
	Spoke[Hub]
}, PH interface {
	*Hub
	kube.Object
}](c *Conversion) error {
	spoke, hub := PS(new(S)).GroupVersionKind(), PH(new(Hub)).GroupVersionKind()
	if spoke.Kind == "" || hub.Kind == "" {
		return fmt.Errorf("add conversion spoke %T: %T and %T must both state their kind", new(S), new(S), new(Hub))
	}
	if spoke.Group != hub.Group || spoke.Kind != hub.Kind {
		return fmt.Errorf("add conversion spoke %T: spoke %s and hub %s are not the same kind", new(S), spoke, hub)
	}
	dec := c.decoder() // keys matched exactly, as the API server does
	toHub := func(raw []byte) ([]byte, error) {
		s, h := new(S), new(Hub)
		if err := dec.Unmarshal(raw, s); err != nil {
			return nil, fmt.Errorf("decode into %T: %w", s, err)
		}
		*PH(h).GetObjectMeta() = *PS(s).GetObjectMeta()
		if err := PS(s).ConvertTo(h); err != nil {
			return nil, err
		}
		return json.Marshal(h)
	}
	fromHub := func(raw []byte) ([]byte, error) {
		s, h := new(S), new(Hub)
		if err := dec.Unmarshal(raw, h); err != nil {
			return nil, fmt.Errorf("decode into %T: %w", h, err)
		}
		*PS(s).GetObjectMeta() = *PH(h).GetObjectMeta()
		if err := PS(s).ConvertFrom(h); err != nil {
			return nil, err
		}
		return json.Marshal(s)
	}
	return c.addSpoke(hub.Group, hub.Kind, hub.Version, spoke.Version, spokeFuncs{toHub: toHub, fromHub: fromHub})
}

// AddUnstructuredSpoke adds the conversion of hub's kind between version
// spokeVersion and hub's version, on [kube.Unstructured] objects, which
// keep every field. toHub fills dst (the hub version) from src (the spoke
// version); fromHub fills dst (the spoke version) from src (the hub
// version). Each dst arrives with src's metadata and the right apiVersion
// and kind. The rules of [AddSpoke] apply.
func (c *Conversion) AddUnstructuredSpoke(hub kube.GroupVersionKind, spokeVersion string, toHub, fromHub func(src, dst *kube.Unstructured) error) error {
	if toHub == nil || fromHub == nil {
		return fmt.Errorf("add conversion spoke %s of %s: toHub and fromHub must both be set", spokeVersion, hub.Kind)
	}
	spoke := kube.GroupVersionKind{Group: hub.Group, Version: spokeVersion, Kind: hub.Kind}
	convert := func(fn func(src, dst *kube.Unstructured) error, to kube.GroupVersionKind) convertFunc {
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
	return c.addSpoke(hub.Group, hub.Kind, hub.Version, spokeVersion,
		spokeFuncs{toHub: convert(toHub, hub), fromHub: convert(fromHub, spoke)})
}
