// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"net/url"
	"strconv"
)

// ListOptions select what List and Watch return. The zero value lists every
// object of the kind in every namespace, at the most recent version.
type ListOptions struct {
	// Namespace limits the call to one namespace; empty means all
	// namespaces (and is the only choice for cluster-scoped kinds).
	Namespace     string
	LabelSelector Selector
	FieldSelector FieldSelector
	// Limit asks for at most this many items; the server returns a
	// Continue token in the list's metadata when there are more.
	Limit    int64
	Continue string
	// ResourceVersion and ResourceVersionMatch say how fresh the result
	// must be: "" is the most recent (a consistent read), "0" any version
	// the server has cached; with ResourceVersionMatch "NotOlderThan" or
	// "Exact" the version given.
	ResourceVersion      string
	ResourceVersionMatch string
	// ShardSelector asks for the objects of some hash ranges only
	// (?shardSelector=); a server without the ShardedListAndWatch feature
	// gate ignores it, see [ListMeta.FilteredBy].
	ShardSelector ShardSelector

	// MetadataOnly asks for the PartialObjectMetadata projection of every
	// object (of every event's object, for Watch). A List into a
	// List[PartialObjectMetadata] asks for it anyway.
	MetadataOnly bool
	// SkipManagedFields decodes every object without
	// metadata.managedFields: its JSON is checked and skipped, never
	// built, so the objects read carry none. The server still sends them.
	// A cache reads this way unless told to keep them
	// (cache.InformerOptions.KeepManagedFields).
	SkipManagedFields bool

	// The rest applies to Watch only.

	// TimeoutSeconds asks the server to end the watch after this long.
	TimeoutSeconds int64
	// AllowWatchBookmarks asks for BOOKMARK events.
	AllowWatchBookmarks bool
	// SendInitialEvents asks for the current state as ADDED events first,
	// ended by a bookmark annotated k8s.io/initial-events-end (WatchList).
	// It needs ResourceVersionMatch "NotOlderThan" and AllowWatchBookmarks.
	SendInitialEvents bool
}

// The values of ListOptions.ResourceVersionMatch.
const (
	MatchNotOlderThan = "NotOlderThan"
	MatchExact        = "Exact"
)

func (o *ListOptions) query(watch bool) url.Values {
	// One table and one loop, not a q.Set per parameter: each Set is
	// inlined, and a dozen of them took 1 KB more of code.
	params := [...]struct{ key, value string }{
		{"labelSelector", o.LabelSelector.String()},
		{"fieldSelector", o.FieldSelector.String()},
		{"limit", positive(o.Limit)},
		{"continue", o.Continue},
		{"resourceVersion", o.ResourceVersion},
		{"resourceVersionMatch", o.ResourceVersionMatch},
		{"shardSelector", o.ShardSelector.String()},
		{"watch", flag(watch)},
		{"timeoutSeconds", positive(o.TimeoutSeconds)},
		{"allowWatchBookmarks", flag(o.AllowWatchBookmarks)},
		{"sendInitialEvents", flag(o.SendInitialEvents)},
	}
	n := len(params)
	if !watch {
		n = 7 // the parameters of a watch only follow
	}
	q := url.Values{}
	for _, p := range params[:n] {
		if p.value != "" {
			q[p.key] = []string{p.value}
		}
	}
	return q
}

// positive is n in decimal, or "" for n <= 0.
func positive(n int64) string {
	if n <= 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

// flag is "true" for b, else "".
func flag(b bool) string {
	if b {
		return "true"
	}
	return ""
}

// DeleteOptions refine a delete.
type DeleteOptions struct {
	// Preconditions make the delete fail with a Conflict unless the object
	// still has this uid and resourceVersion.
	Preconditions *Preconditions `json:"preconditions,omitempty"`
	// PropagationPolicy is [PropagationOrphan], [PropagationBackground]
	// or [PropagationForeground]; empty is the kind's default.
	PropagationPolicy PropagationPolicy `json:"propagationPolicy,omitempty"`
	// GracePeriodSeconds, when not nil, replaces the object's own grace
	// period (a pod's terminationGracePeriodSeconds).
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	// DryRun asks the server to answer as if it deleted, deleting
	// nothing, as [ClientOptions.DryRun] does for every write.
	DryRun bool `json:"-"`
}

// Preconditions must hold for a delete to proceed.
type Preconditions struct {
	UID             *string `json:"uid,omitempty"`
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}

// DeleteAllOfOptions select the objects DeleteAllOf deletes.
type DeleteAllOfOptions struct {
	Namespace     string
	LabelSelector Selector
	FieldSelector FieldSelector
	DeleteOptions
}

// PatchType is the media type of a patch.
type PatchType string

// The patch types the server accepts.
const (
	MergePatch          PatchType = "application/merge-patch+json"
	JSONPatch           PatchType = "application/json-patch+json"
	StrategicMergePatch PatchType = "application/strategic-merge-patch+json"
	ApplyPatch          PatchType = "application/apply-patch+yaml"
)

// Patch is a patch document and its type. A patch is either written out,
// Patch{Type: MergePatch, Data: []byte(`{"data":{"a":"1"}}`)}, or made by
// [MergeFrom] from the object as read, in which case Data is left empty and
// the document is computed from the object being patched when the patch
// is sent ([Patch.DataFor]).
//
// controller-runtime's Patch is an interface (Type, and Data(obj)); here
// it stays a struct, so that every Patch{Type, Data} written before
// MergeFrom works as it did, and MergeFrom fills an unexported field
// instead of Data. A client of your own that takes a Patch sends
// DataFor(obj), not Data.
type Patch struct {
	Type PatchType
	Data []byte

	// merge makes the document of a patch made by MergeFrom from the
	// object being patched (a *mergeFrom, which keeps the original); nil
	// for a patch written out. It is an interface that only MergeFrom
	// fills, so that a program that never calls MergeFrom does not link
	// the diff (see "Binary size" in package manager's doc).
	merge patchMaker
}

// patchMaker makes a patch's document from the object being patched.
type patchMaker interface {
	dataFor(modified Object) ([]byte, error)
}

// ApplyOptions refine a server-side apply: the options of any write, of
// which FieldManager is required (the client's default field manager is
// used when empty) and Force takes ownership of fields other managers
// own instead of failing with a conflict.
type ApplyOptions = WriteOptions
