// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/kubeloop/kubeloop/internal/jsondec"
	"github.com/kubeloop/kubeloop/kube"
)

// convertFunc converts one object, given and returned as JSON. It may
// modify its argument.
type convertFunc func(obj []byte) ([]byte, error)

// spokeFuncs are how one version of a kind converts to and from its hub.
type spokeFuncs struct {
	// toHub takes an object of the spoke version and returns it in the
	// hub version; fromHub does the reverse.
	toHub, fromHub convertFunc
}

// groupKind names a kind across its versions.
type groupKind struct{ group, kind string }

// hubAndSpokes is the conversion graph of one kind.
type hubAndSpokes struct {
	hub    string                // version
	spokes map[string]spokeFuncs // by version
}

// Conversion converts custom resources between the versions their
// CustomResourceDefinition serves, for the API server
// (spec.conversion.strategy: Webhook): it answers ConversionReviews
// (apiextensions.k8s.io/v1 or v1beta1, answered in the same version).
// Register it at [ConversionPath]. The zero value is ready to use; it is
// safe for concurrent use, and kinds may be added while it serves.
//
// Versions convert hub and spoke: for each kind, one version is the hub,
// and every other version (a spoke) converts to and from it. A spoke
// converts to another spoke through the hub, so n versions need n-1
// pairs of functions, not n².
//
//   - Objects come back in the order they were sent, with apiVersion set
//     to the desired version and kind unchanged; an object already in the
//     desired version comes back as it was sent.
//   - Before a conversion function runs, the destination already holds
//     the source's metadata, so a function converts spec and status only.
//     (The API server keeps the original metadata anyway, except labels
//     and annotations, which a function may change.)
//   - One object that cannot be converted (unknown kind or version, a
//     group other than the desired one, an error or a panic in a
//     function) fails the whole review: result.status "Failure" with a
//     message naming the object, and no objects; the API server then
//     fails the client's request.
//   - Malformed requests are answered as [Admission] answers them: with a
//     Failure review carrying the uid when there is one, otherwise with
//     an HTTP error.
//   - Bounded memory: a review holds about twice its size while it is
//     converted (its body, and the converted objects, which are written
//     out as they are, without another copy). The API server sends one
//     object per review; a review larger than MaxRequestBytes is refused
//     unread with 413, and one that would take the reviews being
//     converted at once past MaxInFlightBytes with 429 and Retry-After: 1,
//     which the API server retries (up to 10 times) before it fails the
//     client's request. The API server shows the message of either
//     refusal to its client.
//
// A converted object is what the API server stores when it converts to
// the storage version: a typed conversion ([AddSpoke]) drops every field
// its Go types do not declare. Use types that declare the whole schema,
// or [Conversion.AddUnstructuredSpoke], which keeps everything.
type Conversion struct {
	// MaxRequestBytes bounds one review's body. Zero means
	// [MaxConversionBytes] (8 MiB), which holds any one object the API
	// server stores (1.5 MiB in etcd) or accepts in a write (3 MiB). Set
	// it before the webhook serves.
	MaxRequestBytes int64
	// MaxInFlightBytes bounds the bodies of the reviews being converted
	// at once. Zero means four times MaxRequestBytes
	// ([MaxConversionBytesInFlight], 32 MiB, by default); it is never
	// less than MaxRequestBytes. Set it before the webhook serves.
	MaxInFlightBytes int64

	mu    sync.RWMutex
	kinds map[groupKind]*hubAndSpokes // guarded by mu

	// budget holds the body sizes of the reviews being answered.
	budget budget

	// decOnce makes dec, the decoder of the objects' heads and of the
	// typed spokes, on first use: keys matched exactly.
	decOnce sync.Once
	dec     *jsondec.Decoder
}

// decoder returns c's decoder (see reviewDecoder).
func (c *Conversion) decoder() *jsondec.Decoder {
	c.decOnce.Do(func() { c.dec = reviewDecoder() })
	return c.dec
}

// limits returns MaxRequestBytes and MaxInFlightBytes with the defaults
// filled in; a review's cost is its body.
func (c *Conversion) limits() limits {
	request, inFlight := c.MaxRequestBytes, c.MaxInFlightBytes
	if request <= 0 {
		request = MaxConversionBytes
	}
	if inFlight <= 0 {
		inFlight = 4 * request
	}
	return limits{what: "conversion", body: request, cost: request, costField: "MaxRequestBytes", inFlight: max(request, inFlight)}
}

// addSpoke registers the conversion of group/kind between version spoke
// and version hub. The first spoke of a kind decides its hub; a later one
// with another hub, or a spoke added twice, is an error.
func (c *Conversion) addSpoke(group, kind, hub, spoke string, s spokeFuncs) error {
	switch {
	case kind == "" || hub == "" || spoke == "":
		return fmt.Errorf("add conversion: kind %q, hub version %q and spoke version %q must not be empty", kind, hub, spoke)
	case hub == spoke:
		return fmt.Errorf("add conversion of %s: spoke version %s is the hub version", kind, spoke)
	case s.toHub == nil || s.fromHub == nil:
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
		hs = &hubAndSpokes{hub: hub, spokes: map[string]spokeFuncs{}}
		c.kinds[gk] = hs
	}
	switch {
	case hs.hub != hub:
		return fmt.Errorf("add conversion of %s %s: the hub of %s is %s, not %s", kind, spoke, kind, hs.hub, hub)
	case hs.spokes[spoke].toHub != nil:
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
func (c *Conversion) describe(raw []byte) string {
	var h head
	if c.decoder().Unmarshal(raw, &h) != nil || h.Kind == "" {
		return ""
	}
	return fmt.Sprintf(" (%s %s)", h.Kind, kube.Key{Namespace: h.Metadata.Namespace, Name: h.Metadata.Name})
}

func (c *Conversion) convertOne(raw []byte, group, to string) (obj []byte, err error) {
	var h head
	if err := c.decoder().Unmarshal(raw, &h); err != nil {
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
	var fromSpoke, toSpoke spokeFuncs
	if hs != nil {
		fromSpoke, toSpoke = hs.spokes[from], hs.spokes[to]
	}
	c.mu.RUnlock()
	switch {
	case hs == nil:
		return nil, fmt.Errorf("no conversion for kind %s in group %q", h.Kind, group)
	case from != hs.hub && fromSpoke.toHub == nil:
		return nil, fmt.Errorf("no conversion from version %s (the hub is %s)", from, hs.hub)
	case to != hs.hub && toSpoke.fromHub == nil:
		return nil, fmt.Errorf("no conversion to version %s (the hub is %s)", to, hs.hub)
	}
	defer func() {
		if p := recover(); p != nil {
			obj, err = nil, fmt.Errorf("conversion panicked: %v", p)
		}
	}()
	obj = raw
	if from != hs.hub {
		if obj, err = fromSpoke.toHub(obj); err != nil {
			return nil, fmt.Errorf("convert %s to hub %s: %w", from, hs.hub, err)
		}
	}
	if to != hs.hub {
		if obj, err = toSpoke.fromHub(obj); err != nil {
			return nil, fmt.Errorf("convert hub %s to %s: %w", hs.hub, to, err)
		}
	}
	return c.stampVersion(obj, group, to, h.Kind)
}

// stampVersion sets apiVersion and kind on a converted object, whatever
// the conversion functions wrote there. An object that has them right already is
// returned as it is.
func (c *Conversion) stampVersion(obj []byte, group, version, kind string) ([]byte, error) {
	gvk := kube.GroupVersionKind{Group: group, Version: version, Kind: kind}
	var h head
	if c.decoder().Unmarshal(obj, &h) == nil && h.APIVersion == gvk.APIVersion() && h.Kind == kind {
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
