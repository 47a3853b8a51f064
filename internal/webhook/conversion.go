// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/kubeloop/kubeloop/kube"
)

// ConvertFunc converts one object, given and returned as JSON. It may
// modify its argument.
type ConvertFunc func(obj []byte) ([]byte, error)

// Spoke is how one version of a kind converts to and from its hub.
type Spoke struct {
	// ToHub takes an object of the spoke version and returns it in the
	// hub version; FromHub does the reverse.
	ToHub, FromHub ConvertFunc
}

// groupKind names a kind across its versions.
type groupKind struct{ group, kind string }

// hubAndSpokes is the conversion graph of one kind.
type hubAndSpokes struct {
	hub    string           // version
	spokes map[string]Spoke // by version
}

// Conversions answers ConversionReviews for kinds served in several
// versions, hub and spoke: every version converts to and from one hub
// version, and two spokes convert through the hub. It is safe for
// concurrent use; kinds may be added while it serves.
//
//   - Objects come back in the order of the request, with apiVersion set
//     to the desired version and kind unchanged; an object already in the
//     desired version comes back as it was sent.
//   - One object that cannot be converted (unknown kind or version, a
//     group other than the desired one, an error or a panic in a
//     ConvertFunc) fails the whole review: result.status "Failure" with a
//     message naming the object, and no objects.
//   - Malformed requests are answered as [Admission] answers them: with a
//     Failure review carrying the uid when there is one, otherwise with
//     an HTTP error.
//   - Bounded memory: a review holds about twice its size while it is
//     converted (its body, and the converted objects, which are written
//     out as they are, without another copy). A review larger than
//     [Limits].RequestBytes is refused unread with 413; one that would
//     take the reviews in flight past [Limits].InFlightBytes is refused
//     unread with 429 and Retry-After: 1, which the API server's client
//     retries (up to 10 times) before it fails the client's request. The
//     API server shows the message of either refusal to its client.
type Conversions struct {
	mu    sync.RWMutex
	kinds map[groupKind]*hubAndSpokes // guarded by mu

	// inFlight is the sum of the body sizes (stated, or the limit when
	// unstated) of the reviews being answered.
	inFlight atomic.Int64
}

// AddSpoke registers the conversion of group/kind between version spoke
// and version hub. The first spoke of a kind decides its hub; a later one
// with another hub, or a spoke added twice, is an error.
func (c *Conversions) AddSpoke(group, kind, hub, spoke string, s Spoke) error {
	switch {
	case kind == "" || hub == "" || spoke == "":
		return fmt.Errorf("add conversion: kind %q, hub version %q and spoke version %q must not be empty", kind, hub, spoke)
	case hub == spoke:
		return fmt.Errorf("add conversion of %s: spoke version %s is the hub version", kind, spoke)
	case s.ToHub == nil || s.FromHub == nil:
		return fmt.Errorf("add conversion of %s %s: ToHub and FromHub must both be set", kind, spoke)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kinds == nil {
		c.kinds = map[groupKind]*hubAndSpokes{}
	}
	gk := groupKind{group, kind}
	hs := c.kinds[gk]
	if hs == nil {
		hs = &hubAndSpokes{hub: hub, spokes: map[string]Spoke{}}
		c.kinds[gk] = hs
	}
	switch {
	case hs.hub != hub:
		return fmt.Errorf("add conversion of %s %s: the hub of %s is %s, not %s", kind, spoke, kind, hs.hub, hub)
	case hs.spokes[spoke].ToHub != nil:
		return fmt.Errorf("add conversion of %s %s: already added", kind, spoke)
	}
	hs.spokes[spoke] = s
	return nil
}

// head is what convertOne reads of an object before converting it.
type head struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"metadata"`
}

// describe names an object for an error message: " (Kind ns/name)".
func describe(raw []byte) string {
	var h head
	if json.Unmarshal(raw, &h) != nil || h.Kind == "" {
		return ""
	}
	return fmt.Sprintf(" (%s %s)", h.Kind, kube.Key{Namespace: h.Metadata.Namespace, Name: h.Metadata.Name})
}

func (c *Conversions) convertOne(raw []byte, group, to string) (obj []byte, err error) {
	var h head
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	fromGroup, from := kube.ParseAPIVersion(h.APIVersion)
	switch {
	case h.Kind == "" || from == "":
		return nil, fmt.Errorf("object has no apiVersion or kind")
	case fromGroup != group:
		return nil, fmt.Errorf("object of group %q cannot convert to group %q", fromGroup, group)
	case from == to:
		return raw, nil
	}
	c.mu.RLock()
	hs := c.kinds[groupKind{group, h.Kind}]
	var fromSpoke, toSpoke Spoke
	if hs != nil {
		fromSpoke, toSpoke = hs.spokes[from], hs.spokes[to]
	}
	c.mu.RUnlock()
	switch {
	case hs == nil:
		return nil, fmt.Errorf("no conversion for kind %s in group %q", h.Kind, group)
	case from != hs.hub && fromSpoke.ToHub == nil:
		return nil, fmt.Errorf("no conversion from version %s (the hub is %s)", from, hs.hub)
	case to != hs.hub && toSpoke.FromHub == nil:
		return nil, fmt.Errorf("no conversion to version %s (the hub is %s)", to, hs.hub)
	}
	defer func() {
		if p := recover(); p != nil {
			obj, err = nil, fmt.Errorf("conversion panicked: %v", p)
		}
	}()
	obj = raw
	if from != hs.hub {
		if obj, err = fromSpoke.ToHub(obj); err != nil {
			return nil, fmt.Errorf("convert %s to hub %s: %w", from, hs.hub, err)
		}
	}
	if to != hs.hub {
		if obj, err = toSpoke.FromHub(obj); err != nil {
			return nil, fmt.Errorf("convert hub %s to %s: %w", hs.hub, to, err)
		}
	}
	return stampVersion(obj, group, to, h.Kind)
}

// stampVersion sets apiVersion and kind on a converted object, whatever
// the ConvertFuncs wrote there. An object that has them right already is
// returned as it is.
func stampVersion(obj []byte, group, version, kind string) ([]byte, error) {
	gvk := kube.GroupVersionKind{Group: group, Version: version, Kind: kind}
	var h head
	if json.Unmarshal(obj, &h) == nil && h.APIVersion == gvk.APIVersion() && h.Kind == kind {
		return obj, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil || m == nil {
		return nil, fmt.Errorf("converted object is not a JSON object: %.100s", obj)
	}
	m["apiVersion"], _ = json.Marshal(gvk.APIVersion())
	m["kind"], _ = json.Marshal(kind)
	return json.Marshal(m)
}
