// SPDX-License-Identifier: Apache-2.0

package fleet

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/leader"
)

// This file shares a fleet's clusters among the replicas of a program
// through a ring of Leases (package leader): the fleet's paths reach it
// only through its ring field, which only RingOptions fills (see
// "Binary size" in package manager).

// Sharding is what Options.Sharding holds: a [RingOptions], or nil.
type Sharding interface {
	newRing(f *Fleet) (clusterRing, error)
}

// clusterRing is the ring member a fleet runs (a *leader.Member).
type clusterRing interface {
	Run(ctx context.Context) error
}

// RingOptions share the clusters of a fleet among the replicas of a
// program, as sharded controllers share a kind's objects (see package
// leader's ring): the replicas form a ring of Leases, the hash space is
// cut into ranges spread over the live replicas, and each replica runs
// only the clusters whose name hashes ([NameHash]) into a range it
// holds: their caches and the fleet controllers' work for them. Every
// replica engages every cluster (give all of them the same providers);
// the ring decides where each runs. With the ring's guarantees:
//
//   - Never two replicas on one cluster: a replica starts a cluster only
//     once the previous holder of its range has released it, which it
//     does only after the cluster's controllers and cache have stopped
//     there (their reconciles in flight returned).
//   - Every engaged cluster held: every range is held by a live replica
//     within the ring's bounds (a replica that stops hands its ranges
//     over within RetryPeriod; one that dies, within LeaseDuration +
//     RetryPeriod).
//
// Clusters are few, so a replica may hold ranges with no cluster in
// them: with DefaultRanges (64) ranges and a handful of clusters, the
// clusters spread as their names' hashes fall.
type RingOptions struct {
	// Client reads and writes the ring's Leases: give it a client of its
	// own (kube.NewClient of the manager's config). Required.
	Client *kube.Client
	// Namespace holds the ring's Leases. Required.
	Namespace string
	// Ring names the ring (the Leases' label and prefix), the same in
	// every replica. Required.
	Ring string
	// Identity names this replica; empty means leader.DefaultIdentity.
	Identity string
	// Ranges is how many ranges the hash space is cut into, the same in
	// every replica; zero means leader.DefaultRanges.
	Ranges int
	// LeaseDuration, RenewDeadline and RetryPeriod are the ring's (see
	// leader.RingOptions), with its defaults.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

func (o RingOptions) newRing(f *Fleet) (clusterRing, error) {
	return leader.NewMember(leader.RingOptions{
		Client: o.Client, Namespace: o.Namespace, Ring: o.Ring, Identity: o.Identity, Ranges: o.Ranges,
		LeaseDuration: o.LeaseDuration, RenewDeadline: o.RenewDeadline, RetryPeriod: o.RetryPeriod,
		Work: f.hold, Logger: f.log.With(slog.String("fleet", o.Ring)),
	})
}

// hold runs the clusters of the range sel names until ctx is done (the
// range moves, or the fleet stops), then stops them and returns once
// they have stopped: only then does the ring publish the range's
// release.
func (f *Fleet) hold(ctx context.Context, sel kube.ShardSelector) error {
	f.mu.Lock()
	f.held = append(f.held, &sel)
	for _, m := range f.members {
		if m.run == nil && f.runsLocked(m.name) {
			f.startLocked(m)
		}
	}
	f.mu.Unlock()
	<-ctx.Done()
	f.mu.Lock()
	f.held = slices.DeleteFunc(f.held, func(s *kube.ShardSelector) bool { return s == &sel })
	var stopping []<-chan struct{}
	for _, m := range f.members {
		if m.run != nil && sel.ContainsHash(NameHash(m.name)) {
			stopping = append(stopping, f.stopLocked(m))
		}
	}
	f.mu.Unlock()
	for _, done := range stopping {
		<-done
	}
	return nil
}

// NameHash is the hash of a cluster's name that places it in a range of
// the ring: kube.ShardHash (FNV-1a), mixed by splitmix64's finalizer.
// FNV-1a alone spreads the objects' uids, which are random, but not
// names that differ in their last characters (prod-1, prod-2), whose
// hashes share their high bits and so their range.
func NameHash(name string) uint64 {
	h := kube.ShardHash(name)
	h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>27) * 0x94d049bb133111eb
	return h ^ h>>31
}
