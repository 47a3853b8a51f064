// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/validation"
)

// This file is the one table of what changes with the Kubernetes minor a
// Server acts as (Options.Minor): the release /version reports, the
// feature gates whose defaults a client's path depends on, and the
// built-in resources served. Everything else (defaults, messages, tables,
// schemas) is the newest minor's. The facts come from each release's
// source (the gate's default in pkg/features, the resources each group's
// RESTStorageProvider registers for its GA versions) and, for the
// releases the harness runs, from the real server.

// Minors a Server can act as: OldestMinor to NewestMinor of Kubernetes 1.
const (
	OldestMinor = 33
	NewestMinor = 37
)

// minorFacts is what a Server acting as one minor does differently.
type minorFacts struct {
	// gitVersion is the release /version reports: the newest patch
	// release of the minor when kubetest was last checked against it.
	gitVersion string
	// watchList is the WatchList feature gate's default: when off, a
	// watch with sendInitialEvents is refused (422) and a watch without a
	// resourceVersion is not turned into one.
	watchList bool
	// shardedListAndWatch reports whether the minor has the
	// ShardedListAndWatch gate (alpha since 1.36; kubetest turns it on, as
	// the harness does, unless Options.DisableShardedListAndWatch): without
	// it ?shardSelector= is ignored, not refused, and lists carry no
	// shardInfo.
	shardedListAndWatch bool
	// shardPagesCount says a sharded list's page carries
	// remainingItemCount (1.36; 1.37 counts only pages no label, field or
	// shard selector filters).
	shardPagesCount bool
	// crdTable says CustomResourceDefinitions have a Table of their own
	// (1.37: scope, versions, group, kind, short names, established);
	// before, the default one (name and creation time).
	crdTable bool
	// ownerRefs is how the errors of metadata.ownerReferences are worded:
	// 1.37 names the entry (metadata.ownerReferences[0].uid) and calls an
	// empty field a "Required value"; before, they name the list and call
	// it an Invalid value "" (1.33 repeating the field's name).
	ownerRefs validation.OwnerRefWording
	// uidPreconditionOnAbsent says a PUT whose object carries a uid, of an
	// object that does not exist (deleted since it was read), fails the
	// uid precondition on the absent object: 409 "StorageError: invalid
	// object, Code: 4" (1.33, whose update reads storage ignoring "not
	// found" for every kind); 1.34 and later answer 404, or create it.
	uidPreconditionOnAbsent bool
	// accessReviewErrorAtSpec says an access review with both or neither
	// of resourceAttributes and nonResourceAttributes is refused with one
	// error at spec (1.37); before, at the attribute.
	accessReviewErrorAtSpec bool
}

// errUIDPreconditionOnAbsent is 1.33's answer to a PUT carrying uid of an
// object that does not exist: storage's precondition error on an empty
// object, as a Conflict. The key is the etcd key of the generic
// registry (resource, or group and resource for custom ones, then
// namespace and name).
func errUIDPreconditionOnAbsent(res *resource, namespace, name, uid string) *kube.StatusError {
	key := "/registry/" + res.Plural
	if res.CRD != "" {
		key = "/registry/" + res.Group + "/" + res.Plural
	}
	if namespace != "" {
		key += "/" + namespace
	}
	return errConflict(res, name, fmt.Sprintf("StorageError: invalid object, Code: 4, Key: %s/%s, ResourceVersion: 0, "+
		"AdditionalErrorMsg: Precondition failed: UID in precondition: %s, UID in object meta: ", key, name, uid))
}

// factsOf returns the facts of minor, which must be in
// OldestMinor..NewestMinor.
func factsOf(minor int) minorFacts {
	switch minor {
	case 33:
		// WatchList went back to off by default in 1.33 (beta), on
		// again in 1.34.
		return minorFacts{gitVersion: "v1.33.13", ownerRefs: validation.OwnerRefsByListNamed, uidPreconditionOnAbsent: true}
	case 34:
		return minorFacts{gitVersion: "v1.34.4", watchList: true, ownerRefs: validation.OwnerRefsByList}
	case 35:
		return minorFacts{gitVersion: "v1.35.4", watchList: true, ownerRefs: validation.OwnerRefsByList}
	case 36:
		return minorFacts{gitVersion: "v1.36.3", watchList: true, shardedListAndWatch: true, shardPagesCount: true,
			ownerRefs: validation.OwnerRefsByList}
	default:
		return minorFacts{gitVersion: Version, watchList: true, shardedListAndWatch: true, crdTable: true,
			accessReviewErrorAtSpec: true}
	}
}

// resolveMinor returns the minor Options.Minor names (zero: NewestMinor),
// or an error naming the minors served.
func resolveMinor(minor int) (int, error) {
	if minor == 0 {
		return NewestMinor, nil
	}
	if minor < OldestMinor || minor > NewestMinor {
		return 0, fmt.Errorf("kubetest: Options.Minor %d is not a minor kubetest acts as: it acts as Kubernetes 1.%d to 1.%d",
			minor, OldestMinor, NewestMinor)
	}
	return minor, nil
}

// withGates returns f with the feature gates of gates set (Options.FeatureGates),
// or an error naming a gate the minor does not have or kubetest does not
// model, as kube-apiserver refuses to start with an unknown gate.
func (f minorFacts) withGates(minor int, gates map[string]bool) (minorFacts, error) {
	for _, name := range slices.Sorted(maps.Keys(gates)) {
		switch on := gates[name]; {
		case name == "WatchList":
			f.watchList = on
		case name == "ShardedListAndWatch" && f.shardedListAndWatch:
			f.shardedListAndWatch = on
		case name == "ShardedListAndWatch":
			return f, fmt.Errorf("kubetest: Options.FeatureGates: 1.%d has no feature gate ShardedListAndWatch (1.36 and later have)", minor)
		default:
			return f, fmt.Errorf("kubetest: Options.FeatureGates: %q is not a feature gate kubetest models (WatchList, ShardedListAndWatch)", name)
		}
	}
	return f, nil
}
