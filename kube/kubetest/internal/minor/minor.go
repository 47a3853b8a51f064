// SPDX-License-Identifier: Apache-2.0

// Package minor is the table of what changes with the Kubernetes minor a
// kubetest server acts as (Options.Minor, 1.33 to 1.37): the release
// /version reports, the feature gates whose defaults a client's path
// depends on, and the wording and answers that differ. The built-in
// resources each minor serves are internal/kinds' (ServedSince,
// AdjustToMinor). Everything else (defaults, messages, tables, schemas)
// is the newest minor's, but what a Facts field names. The facts come from each release's source (the
// gate's default in pkg/features) and, for the releases the harness
// runs, from the real server.
//
// Guarantees:
//   - Pure: Of and WithGates keep nothing and return values.
//   - 1.33's facts are those the real 1.33.13 answers and the wire
//     scenarios check, all of them run against a server acting as 1.33
//     (internal/scenario's TestKubetestOldest); 1.34 and 1.35 act as 1.36
//     where no fact says otherwise.
//   - WithGates refuses a gate the minor does not have or kubetest does
//     not model, naming it, as kube-apiserver refuses to start.
package minor

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/csr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/validation"
)

// Facts are what a server acting as one minor does differently.
type Facts struct {
	// GitVersion is the release /version reports: the newest patch
	// release of the minor when kubetest was last checked against it.
	GitVersion string
	// WatchList is the WatchList feature gate's default: when off, a
	// watch with sendInitialEvents is refused (422) and a watch without a
	// resourceVersion is not turned into one.
	WatchList bool
	// ShardedListAndWatch reports whether the minor has the
	// ShardedListAndWatch gate (alpha since 1.36; kubetest turns it on, as
	// the harness does, unless Options.DisableShardedListAndWatch): without
	// it ?shardSelector= is ignored, not refused, and lists carry no
	// shardInfo.
	ShardedListAndWatch bool
	// ShardPagesCount says a sharded list's page carries
	// remainingItemCount (1.36; 1.37 counts only pages no label, field or
	// shard selector filters).
	ShardPagesCount bool
	// CRDTable says CustomResourceDefinitions have a Table of their own
	// (1.37: scope, versions, group, kind, short names, established);
	// before, the default one (name and creation time).
	CRDTable bool
	// OwnerRefs is how the errors of metadata.ownerReferences are worded:
	// 1.37 names the entry (metadata.ownerReferences[0].uid) and calls an
	// empty field a "Required value"; before, they name the list and call
	// it an Invalid value "" (1.33 repeating the field's name).
	OwnerRefs validation.OwnerRefWording
	// UIDPreconditionOnAbsent says a PUT whose object carries a uid, of an
	// object that does not exist (deleted since it was read), fails the
	// uid precondition on the absent object: 409 "StorageError: invalid
	// object, Code: 4" (1.33, whose update reads storage ignoring "not
	// found" for every kind); 1.34 and later answer 404, or create it.
	UIDPreconditionOnAbsent bool
	// AccessReviewErrorAtSpec says an access review with both or neither
	// of resourceAttributes and nonResourceAttributes is refused with one
	// error at spec (1.37); before, at the attribute.
	AccessReviewErrorAtSpec bool
	// CSRExclusive is how conditions holding both Approved and Denied are
	// refused: 1.33 at the second's type, 1.34 to 1.36 at the list, 1.37
	// as a union of the two.
	CSRExclusive csr.ExclusiveWording

	// The facts below are 1.33's, checked against the real 1.33.13; 1.34
	// and 1.35 act as 1.36 there.

	// GoSyntaxValues says field errors print a value that is not a
	// string, number or bool in Go syntax (v1.OwnerReference{...},
	// map[string]interface {}{...}) and a nil one as "null"; newer
	// minors print JSON and null.
	GoSyntaxValues bool
	// OldCRDWording says custom resource validation refuses a fraction
	// in an int32 with one type error ("number" is not an integer, no
	// format error) and an embedded resource without apiVersion or kind
	// with "Required value: must not be empty".
	OldCRDWording bool
	// DecodePathsSkipEmbedded says a built-in type's decode error names
	// no embedded struct in the field's path (livenessProbe.httpGet.port,
	// not livenessProbe.ProbeHandler.httpGet.port): the Go of the build.
	DecodePathsSkipEmbedded bool
	// OldTables says a ServiceAccount's Table has a Secrets column (the
	// count of .secrets) and a Deployment's Selector column is described
	// without "It must match the pod template's labels."
	OldTables bool
	// NullCreationTimestamp says objects without a creation time are
	// written with metadata.creationTimestamp: null: the reviews answered
	// without storing (SelfSubjectRulesReview), what a mutating webhook
	// is sent on a create (the object, an Eviction) and the stored pod and
	// job templates (defaulting.NullTemplateTimestamps).
	NullCreationTimestamp bool
	// TokenRequestWithoutUID says a TokenRequest's answer has no
	// metadata.uid (newer minors give the service account's).
	TokenRequestWithoutUID bool
	// CRStatusRecordsMetadata says a custom resource's status write
	// records in its managedFields entry the metadata it sent, though the
	// strategy keeps none of it.
	CRStatusRecordsMetadata bool
	// ServiceProxyViaEndpoints says a service's proxy finds its endpoints
	// in the Endpoints object named like the service, and answers 404
	// for the service when there is none, as 1.33.13 does (newer minors
	// read EndpointSlices and answer 503 "no endpoints available").
	ServiceProxyViaEndpoints bool
}

// Of returns the facts of minor, which must be in 33..37 (kubetest's
// OldestMinor..NewestMinor); 37 reports newestVersion.
func Of(minor int, newestVersion string) Facts {
	switch minor {
	case 33:
		// WatchList went back to off by default in 1.33 (beta), on
		// again in 1.34.
		return Facts{GitVersion: "v1.33.13", OwnerRefs: validation.OwnerRefsByListNamed, UIDPreconditionOnAbsent: true,
			CSRExclusive: csr.ExclusiveAtEntry, GoSyntaxValues: true, OldCRDWording: true, DecodePathsSkipEmbedded: true,
			OldTables: true, NullCreationTimestamp: true, TokenRequestWithoutUID: true, CRStatusRecordsMetadata: true,
			ServiceProxyViaEndpoints: true}
	case 34:
		return Facts{GitVersion: "v1.34.4", WatchList: true, OwnerRefs: validation.OwnerRefsByList, CSRExclusive: csr.ExclusiveAtList}
	case 35:
		return Facts{GitVersion: "v1.35.4", WatchList: true, OwnerRefs: validation.OwnerRefsByList, CSRExclusive: csr.ExclusiveAtList}
	case 36:
		return Facts{GitVersion: "v1.36.3", WatchList: true, ShardedListAndWatch: true, ShardPagesCount: true,
			OwnerRefs: validation.OwnerRefsByList, CSRExclusive: csr.ExclusiveAtList}
	default:
		return Facts{GitVersion: newestVersion, WatchList: true, ShardedListAndWatch: true, CRDTable: true,
			AccessReviewErrorAtSpec: true}
	}
}

// WithGates returns f with the feature gates of gates set (Options.FeatureGates),
// or an error naming a gate the minor does not have or kubetest does not
// model, as kube-apiserver refuses to start with an unknown gate.
func (f Facts) WithGates(minor int, gates map[string]bool) (Facts, error) {
	for _, name := range slices.Sorted(maps.Keys(gates)) {
		switch on := gates[name]; {
		case name == "WatchList":
			f.WatchList = on
		case name == "ShardedListAndWatch" && f.ShardedListAndWatch:
			f.ShardedListAndWatch = on
		case name == "ShardedListAndWatch":
			return f, fmt.Errorf("kubetest: Options.FeatureGates: 1.%d has no feature gate ShardedListAndWatch (1.36 and later have)", minor)
		default:
			return f, fmt.Errorf("kubetest: Options.FeatureGates: %q is not a feature gate kubetest models (WatchList, ShardedListAndWatch)", name)
		}
	}
	return f, nil
}
