// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// GroupVersionKind names a kind of object in the API. The core group is "".
type GroupVersionKind struct {
	Group   string
	Version string
	Kind    string
}

// APIVersion returns the wire form of group and version: "v1" for the core
// group, "apps/v1" otherwise.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (g GroupVersionKind) APIVersion() string {
	if g.Group == "" {
		return g.Version
	}
	return g.Group + "/" + g.Version
}

// String returns "group/version, Kind=kind" (as client-go prints it).
func (g GroupVersionKind) String() string {
	return g.APIVersion() + ", Kind=" + g.Kind
}

// GroupVersionResource names a resource: the plural, lower-case name used in
// request paths.
type GroupVersionResource struct {
	Group    string
	Version  string
	Resource string
}

// ParseAPIVersion splits "apps/v1" into ("apps", "v1") and "v1" into ("", "v1").
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func ParseAPIVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}

// TypeMeta is the apiVersion and kind every object and list carries on the
// wire. Embed it without a JSON tag so its fields sit at the top level.
type TypeMeta struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// GroupVersionKind returns the identity written in apiVersion and kind. Typed
// objects shadow it with their own method so that their identity does not
// depend on what the server sent.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (t *TypeMeta) GroupVersionKind() GroupVersionKind {
	if t == nil {
		return GroupVersionKind{}
	}
	g, v := ParseAPIVersion(t.APIVersion)
	return GroupVersionKind{Group: g, Version: v, Kind: t.Kind}
}

// SetGroupVersionKind writes gvk into apiVersion and kind.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (t *TypeMeta) SetGroupVersionKind(gvk GroupVersionKind) {
	if t == nil {
		return
	}
	t.APIVersion, t.Kind = gvk.APIVersion(), gvk.Kind
}

// ObjectMeta is the metadata every persisted object has. Embed it in your
// types as
//
//	kube.ObjectMeta `json:"metadata"`
type ObjectMeta struct {
	Name                       string            `json:"name,omitempty"`
	GenerateName               string            `json:"generateName,omitempty"`
	Namespace                  string            `json:"namespace,omitempty"`
	UID                        string            `json:"uid,omitempty"`
	ResourceVersion            string            `json:"resourceVersion,omitempty"`
	Generation                 int64             `json:"generation,omitempty"`
	CreationTimestamp          Time              `json:"creationTimestamp,omitzero"`
	DeletionTimestamp          *Time             `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64            `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string `json:"labels,omitempty"`
	Annotations                map[string]string `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference  `json:"ownerReferences,omitempty"`
	Finalizers                 []string          `json:"finalizers,omitempty"`
	// ManagedFields is kept as the server sent it, undecoded. Caches usually
	// drop it (set it to nil in a transform): it is often the largest part
	// of an object's metadata.
	ManagedFields json.RawMessage `json:"managedFields,omitempty"`
}

// GetObjectMeta returns m itself, so that every type embedding ObjectMeta
// gives access to its metadata through [Object].
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// Key returns the object's namespace and name.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (m *ObjectMeta) Key() Key {
	if m == nil {
		return Key{}
	}
	return Key{Namespace: m.Namespace, Name: m.Name}
}

// HasFinalizer reports whether name is among m's finalizers.
func (m *ObjectMeta) HasFinalizer(name string) bool {
	if m == nil {
		return false
	}
	for _, f := range m.Finalizers {
		if f == name {
			return true
		}
	}
	return false
}

// AddFinalizer adds name unless it is there and reports whether it changed m.
func (m *ObjectMeta) AddFinalizer(name string) bool {
	if m == nil || m.HasFinalizer(name) {
		return false
	}
	m.Finalizers = append(m.Finalizers, name)
	return true
}

// RemoveFinalizer removes name and reports whether it changed m.
func (m *ObjectMeta) RemoveFinalizer(name string) bool {
	if m == nil {
		return false
	}
	out := m.Finalizers[:0:0]
	for _, f := range m.Finalizers {
		if f != name {
			out = append(out, f)
		}
	}
	changed := len(out) != len(m.Finalizers)
	if changed {
		m.Finalizers = out
	}
	return changed
}

// ListMeta is the metadata of a list: the resourceVersion the list was read
// at and, when paging, the token for the next page.
type ListMeta struct {
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
	// ShardInfo is set when the server filtered the list by a shard
	// selector; see [ListMeta.FilteredBy].
	ShardInfo *ShardInfo `json:"shardInfo,omitempty"`
}

// GetListMeta returns m itself; see [ObjectList].
func (m *ListMeta) GetListMeta() *ListMeta { return m }

// OwnerReference points from a dependent object to its owner.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// IsController reports whether the reference marks the managing controller.
func (r OwnerReference) IsController() bool { return r.Controller != nil && *r.Controller }

// Key is an object's namespace and name; Namespace is empty for
// cluster-scoped objects.
type Key struct {
	Namespace string
	Name      string
}

// String returns "namespace/name", or "name" when Namespace is empty (the
// form client-go's cache keys take).
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (k Key) String() string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}

// ParseKey is the inverse of [Key.String].
func ParseKey(s string) Key {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return Key{Namespace: s[:i], Name: s[i+1:]}
	}
	return Key{Name: s}
}

// Time is a timestamp with the API's second precision, in RFC 3339 UTC
// ("2026-11-21T04:48:10Z"). The zero Time encodes as null.
type Time struct{ time.Time }

// Now returns the current time truncated to the second, as the server stores it.
func Now() Time { return Time{time.Now().UTC().Truncate(time.Second)} }

// MarshalJSON implements [json.Marshaler].
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return append(t.UTC().AppendFormat(append(make([]byte, 0, 32), '"'), time.RFC3339), '"'), nil
}

// UnmarshalJSON implements [json.Unmarshaler].
func (t *Time) UnmarshalJSON(b []byte) error {
	return unmarshalTime(b, &t.Time)
}

// MicroTime is a timestamp with microsecond precision, as Leases and Events
// carry it ("2026-11-21T04:50:00.000000Z").
type MicroTime struct{ time.Time }

// MicroTimeLayout is the wire layout of [MicroTime].
const MicroTimeLayout = "2006-01-02T15:04:05.000000Z07:00"

// MarshalJSON implements [json.Marshaler].
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return append(t.UTC().AppendFormat(append(make([]byte, 0, 40), '"'), MicroTimeLayout), '"'), nil
}

// UnmarshalJSON implements [json.Unmarshaler].
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	return unmarshalTime(b, &t.Time)
}

func unmarshalTime(b []byte, t *time.Time) error {
	if string(b) == "null" {
		*t = time.Time{}
		return nil
	}
	var s string
	var err error
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && bytes.IndexByte(b[1:len(b)-1], '\\') < 0 {
		s = string(b[1 : len(b)-1]) // the common case: no escapes to undo
	} else if s, err = jsondec.Unquote(b); err != nil {
		return err
	}
	if s == "" {
		*t = time.Time{}
		return nil
	}
	parsed, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	// The wire form is UTC with a four-digit year: a time whose offset
	// moves it out of years 0000-9999 could not be written back.
	if y := parsed.UTC().Year(); y < 0 || y > 9999 {
		return fmt.Errorf("time %q is out of range: in UTC its year is %d, not 0000 to 9999", s, y)
	}
	*t = parsed
	return nil
}
