// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"errors"
	"github.com/kubeloop/kubeloop/internal/errs"

	"github.com/kubeloop/kubeloop/internal/typednil"
	"github.com/kubeloop/kubeloop/kube"
)

// This file is what a fleet's controller ([Builder.Clusters]) may add:
// a kind watched in a cluster outside the set for every cluster's
// controller, and the choice of the clusters it runs in.

// ClusterMapFunc maps a change of an object watched with
// [Builder.WatchesIn] to the requests of the cluster named cluster, for
// its controller's queue.
type ClusterMapFunc func(ctx context.Context, cluster string, obj kube.Object) []Request

// hubWatch is one WatchesIn.
type hubWatch struct {
	in    Cluster
	obj   kube.Object
	fn    ClusterMapFunc
	preds []Predicate
}

// WatchesIn makes the controller of each cluster of the set watch obj's
// kind in cluster in, outside the set (the manager itself, the hub of a
// hub-and-members program), and queue in its own queue the requests fn
// maps each change to for that cluster: a change of the hub's object
// reaches every member's controller, each on its own, so that a member
// slow to answer delays no other. A cluster engaged later gets the
// requests of the objects already there (its handler's initial adds).
// The builder's event filters apply, then preds. Call it after
// [Builder.Clusters]; Build refuses it otherwise.
func (b *Builder) WatchesIn(in Cluster, obj kube.Object, fn ClusterMapFunc, preds ...Predicate) *Builder {
	if b == nil {
		return nil // Build reports it
	}
	cb, ok := b.clusters.(*clusterBuild)
	switch {
	case !ok:
		b.errs = append(b.errs, errs.Errorf("WatchesIn %T: call Clusters first: it adds to a fleet's controller", obj))
	case in == nil || typednil.Is(in):
		b.errs = append(b.errs, errs.Errorf("WatchesIn %T: cluster is nil", obj))
	case fn == nil:
		b.errs = append(b.errs, errs.Errorf("WatchesIn %T: map function is nil", obj))
	case b.checkKind("WatchesIn", obj):
		cb.hubs = append(cb.hubs, hubWatch{in: in, obj: obj, fn: fn, preds: preds})
	}
	return b
}

// ClusterFilter makes the controller run only in the clusters of the set
// whose names keep reports true (called once per cluster engaged); the
// others get no controller of its own, no queue and no series. Call it
// after [Builder.Clusters]; Build refuses it otherwise.
func (b *Builder) ClusterFilter(keep func(name string) bool) *Builder {
	if b == nil {
		return nil // Build reports it
	}
	cb, ok := b.clusters.(*clusterBuild)
	switch {
	case !ok:
		b.errs = append(b.errs, errors.New("ClusterFilter: call Clusters first: it chooses among a fleet's clusters"))
	case keep == nil:
		b.errs = append(b.errs, errors.New("ClusterFilter: keep is nil"))
	default:
		cb.filter = keep
	}
	return b
}
