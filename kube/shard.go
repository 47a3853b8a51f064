// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// This file is the client side of the API server's sharded list and watch
// (KEP-5866, kube-apiserver 1.36 with the ShardedListAndWatch feature gate
// on): a list or watch with ?shardSelector=shardRange(object.metadata.uid,
// '0x…', '0x…') returns only the objects whose hash of that field falls in
// the range, and a filtered list says so in metadata.shardInfo. A server
// without the gate ignores the parameter and answers everything, so a
// client that shards must be able to filter by itself with the same hash:
// [ShardSelector.Matches].

// ShardField names the field of an object whose hash places it in a shard.
// The server accepts these two (kube-apiserver 1.36 refuses any other
// field path: ownerReferences, labels and names cannot be sharded on).
//
// Which to choose:
//   - ShardByUID unless a reconcile needs its namespace: uids are random,
//     so the objects spread evenly over the ranges, whatever their
//     namespaces, and a member's share is its share of the ranges.
//   - ShardByNamespace when a reconcile reads (or must not run beside a
//     reconcile of) other objects of its namespace: every object of a
//     namespace is in one shard, so on one member. The load then follows
//     the namespaces: with fewer namespaces than members some members hold
//     nothing, and a large namespace is one member's alone. And the hash
//     mixes a string's last bytes little: names that differ only in
//     their last character (team-1, team-2, …) hash within 2^48 of each
//     other, almost always into one range (a range of 64 is 2^58 wide),
//     so such namespaces all land on one member; names that differ
//     earlier spread.
type ShardField string

const (
	// ShardByUID spreads objects evenly, whatever their namespace.
	ShardByUID ShardField = "object.metadata.uid"
	// ShardByNamespace keeps every object of a namespace in one shard.
	ShardByNamespace ShardField = "object.metadata.namespace"
)

// ValueOf returns the value of field f in m; "" for an unknown field.
// The empty ShardField is [ShardByUID].
func (f ShardField) ValueOf(m *ObjectMeta) string {
	switch f {
	case ShardByUID, "":
		return m.UID
	case ShardByNamespace:
		return m.Namespace
	}
	return ""
}

// ShardHash returns the hash the server puts a field's value in: the
// 64-bit FNV-1a of its string. Cost: one pass over value, no allocation.
func ShardHash(value string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(value))
	return h.Sum64()
}

// HashRange is the half-open interval [Start, End) of the 64-bit hash
// space. End 0 stands for 2^64, the end of the space (which uint64 cannot
// hold), so the zero HashRange is the whole space. A range with End not 0
// and Start >= End is empty, and the server refuses it.
type HashRange struct {
	Start, End uint64
}

// Contains reports whether h falls in r.
func (r HashRange) Contains(h uint64) bool {
	return h >= r.Start && (r.End == 0 || h < r.End)
}

// String returns r in the server's notation: shardRange's two bounds as
// 0x and 16 lower-case hex digits, 2^64 as 0x10000000000000000.
func (r HashRange) String() string {
	return fmt.Sprintf("[%s, %s)", hexBound(r.Start, false), hexBound(r.End, true))
}

// hexBound writes a bound as the server wants it: exactly 16 hex digits
// ("0x0" is refused), or 17 for 2^64.
func hexBound(v uint64, end bool) string {
	if end && v == 0 {
		return "0x10000000000000000"
	}
	return fmt.Sprintf("0x%016x", v)
}

// ShardSelector selects the objects whose hash of Field falls in one of
// Ranges: ?shardSelector= on a list or watch. The zero value selects
// everything and sends no parameter.
//
// Every range must be non-empty (see [HashRange]); the server answers 500
// to a selector it cannot parse, as it does to any malformed one.
type ShardSelector struct {
	// Field is hashed; empty means [ShardByUID].
	Field  ShardField
	Ranges []HashRange
}

// Empty reports whether s selects everything (has no range).
func (s ShardSelector) Empty() bool { return len(s.Ranges) == 0 }

// String returns the parameter's value, in the form the server echoes in
// metadata.shardInfo.selector:
//
//	shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(...)
func (s ShardSelector) String() string {
	field := s.Field
	if field == "" {
		field = ShardByUID
	}
	var b strings.Builder
	for i, r := range s.Ranges {
		if i > 0 {
			b.WriteString(" || ")
		}
		fmt.Fprintf(&b, "shardRange(%s, '%s', '%s')", field, hexBound(r.Start, false), hexBound(r.End, true))
	}
	return b.String()
}

// Validate reports what the server would refuse in s: a field other than
// the two it hashes, or an empty range. The zero value is valid.
func (s ShardSelector) Validate() error {
	if s.Field != "" && s.Field != ShardByUID && s.Field != ShardByNamespace {
		return errs.Errorf("shard selector field %q is not %s or %s", s.Field, ShardByUID, ShardByNamespace)
	}
	for _, r := range s.Ranges {
		if r.End != 0 && r.Start >= r.End {
			return errs.Errorf("shard selector range %s is empty", r)
		}
	}
	return nil
}

// ContainsHash reports whether h falls in one of s's ranges (true for an
// empty s).
func (s ShardSelector) ContainsHash(h uint64) bool {
	if s.Empty() {
		return true
	}
	for _, r := range s.Ranges {
		if r.Contains(h) {
			return true
		}
	}
	return false
}

// Matches reports whether the server would return obj for s: the client's
// own filter, for servers that ignore the selector. Cost: one hash of a
// short string and a scan of the ranges.
func (s ShardSelector) Matches(obj Object) bool {
	if s.Empty() {
		return true
	}
	return s.ContainsHash(ShardHash(s.Field.ValueOf(obj.GetObjectMeta())))
}

// ApplyToList implements [ListOption]: s replaces any shard selector set
// before (two selectors do not combine).
func (s ShardSelector) ApplyToList(o *ListOptions) { o.ShardSelector = s }

// ShardInfo is metadata.shardInfo of a list the server filtered by a shard
// selector. A list without it was not filtered: the server ignored the
// selector.
type ShardInfo struct {
	// Selector is the selector applied, in the form [ShardSelector.String]
	// writes.
	Selector string `json:"selector"`
}

// FilteredBy reports whether the server applied s to the list m is the
// metadata of: shardInfo is present and names s. When it is false for a
// non-empty s, the server ignored the selector (a server without the
// ShardedListAndWatch gate) and the items must be filtered with
// [ShardSelector.Matches]. Watch events carry no such mark (nor does the
// bookmark ending a WatchList's initial events), so a client that cannot
// tell filters every event itself; a hash per event is cheap.
func (m *ListMeta) FilteredBy(s ShardSelector) bool {
	return m != nil && m.ShardInfo != nil && m.ShardInfo.Selector == s.String()
}
