// SPDX-License-Identifier: Apache-2.0

// Package leader coordinates the replicas of a controller through
// coordination.k8s.io/v1 Leases, in two ways: an [Elector] elects one leader
// with one Lease, written as client-go and controller-runtime write it; a
// [Member] of a ring shares the work among all replicas, each holding some
// ranges of the hash space the API server shards objects over (see Rings
// below).
//
// Guarantees of the election:
//   - At most one leader, whatever the clocks say. A candidate takes the
//     Lease from another holder only when the record has not changed for
//     the leaseDurationSeconds written in it, measured on the candidate's own
//     monotonic clock from the moment it saw the record change. The holder's
//     acquireTime and renewTime are written for people and never trusted, so
//     skewed wall clocks cannot make two leaders; and the duration is the
//     holder's, not the candidate's, so candidates configured within
//     [PeerTrust] (4) times each other's LeaseDuration cannot cut each
//     other's leases short.
//   - Bounded trust: a holder's duration is trusted up to PeerTrust times
//     the candidate's own LeaseDuration, so a Lease written with an absurd
//     duration (2147483647 seconds are 68 years) by a holder that never
//     renews blocks leadership for that long at most, not for ever.
//   - A leader stops before anyone can take over. Its term ends RenewDeadline
//     after the last renew that succeeded (counted from when that renew was
//     sent), by a timer that does not wait for a stuck API call; since
//     RenewDeadline < LeaseDuration, the term is over at least
//     LeaseDuration - RenewDeadline before the Lease expires for anyone else,
//     as long as the machines' clocks run at about the same rate.
//   - Never overwrites what it has not read. Every write is a create or an
//     update conditional on the resourceVersion last read; a Conflict means
//     someone else wrote, and the Lease is read again.
//   - Prompt. A leader renews every RetryPeriod. Other candidates poll at
//     random intervals of 0.8 to 1 RetryPeriod (client-go's stretch to up
//     to 2.2), and also exactly when the lease they follow expires. After a
//     leader dies, a successor leads within LeaseDuration + RetryPeriod, at
//     least LeaseDuration after the leader's last renew; after a release
//     (ReleaseOnCancel), within RetryPeriod.
//   - Observable. OnStartedLeading gets a context cancelled the moment the
//     term ends; [Elector.IsLeader] turns false at the same moment;
//     [Elector.Elected] is closed when the first term starts;
//     [Elector.Check] serves a health endpoint.
//   - No leaks. [New] does no I/O and starts nothing; [Elector.Run] returns
//     only after every callback goroutine it started has returned.
//   - No panics from zero values: every exported type's zero value works
//     or returns an error (a zero or nil [Elector] answers "leader.Elector:
//     use leader.New" from Run and is never leader; a nil [Member]
//     "leader.Member: use leader.NewMember"); a typed nil is treated as
//     nil. A Lease that a Get answers 404 for is created only when the
//     404 is a Kubernetes NotFound, never for a server that is not
//     Kubernetes' (kube.NotKubernetesError). TestZeroValues walks the
//     exported API for this.
//
// Limits: a Lease deleted under its leader is put back by the leader's next
// renew (a Lease PUT creates a missing object), and candidates that saw the
// record wait a whole lease before creating one; but a candidate that never
// saw it may create it at once, and then the old leader leads on until its
// next renew fails, at most RetryPeriod later. Do not delete a Lease in use.
//
// Usage:
//  1. Give the elector a [kube.Client] of its own: renewals must not queue
//     behind the controllers' requests in a shared client's rate limit.
//  2. Make an [Elector] with [New], naming the Lease and the callbacks.
//  3. Call [Elector.Run] with the process's context. Start the work in
//     OnStartedLeading (or when [Elector.Elected] is closed) and stop it
//     when that context is cancelled.
//  4. When Run returns an error wrapping [ErrLeadershipLost], exit the
//     process: the work done as leader was cut short, and a fresh start is
//     the safe way back. Run returns nil when its context was cancelled.
//  5. Report [Elector.IsLeader] as the leader_election_master_status gauge,
//     labelled with the Lease name, and serve [Elector.Check] as a health
//     check.
//
// # Rings
//
// A ring cuts the 64-bit hash space into a fixed number of equal ranges
// ([Range], 64 by default) and spreads them over its live members: the
// objects whose [kube.ShardHash] of their uid (or namespace) falls in a
// range are that range holder's to cache and reconcile, and a member lists
// and watches them with the range's shard selector ([ShardSelector]), the
// one its Work is given. Each member holds
// a Lease of its own ([MemberLeaseName], labelled [RingLabel]) that it renews
// every RetryPeriod and that publishes the ranges it claims, holds or
// drains ([RangesAnnotation]). Every RetryPeriod it lists the ring's Leases,
// computes the assignment ([Assign]) from the live members it sees, and
// moves towards it.
//
// Guarantees of a ring:
//   - Never two holders of a range at once, as long as the machines' clocks
//     run at about the same rate and Work returns within LeaseDuration -
//     RenewDeadline of being asked to when renewals fail. A member starts a
//     range's Work only after it has published its claim and then read, in
//     a list sent after that write, that no live member publishes the range
//     (so of two claims at most one is started); it publishes the release
//     only once Work has returned. A member whose renewals fail stops every
//     Work RenewDeadline after the last one that succeeded; the others take
//     it to be gone only when its Lease has not changed for the
//     leaseDurationSeconds written in it (at most [PeerTrust] times their
//     own LeaseDuration), measured on their own monotonic clocks from the
//     moment they saw it change (as the elector does), and judged against
//     a list sent after that moment.
//   - Every range held again after each change of membership, once the
//     members see the same Leases. After a member dies, its ranges within
//     LeaseDuration + RetryPeriod plus seven Lease requests: a survivor
//     sees the dead member's last renew within a RetryPeriod (and the
//     renew and list of that step), and LeaseDuration after that its step
//     renews, lists, deletes the expired Lease, writes its claim and lists
//     again to confirm it. A range the new assignment moves between two
//     survivors is held within that plus the drain of its old holder's
//     Work, which publishes the release (a write and a list), and a
//     quarter RetryPeriod, the poll of a waiting claim. After a graceful
//     leave, within RetryPeriod plus the time its Work takes to drain (the
//     leaver marks itself leaving, stops its Works and publishes each
//     release as the Work returns; the others, who claimed its ranges at
//     their next poll, poll every quarter RetryPeriod while a claim
//     waits). A range the assignment moves between two live members waits
//     for its holder's next poll and drain. Measured (TestRingTakeover:
//     LeaseDuration 4s, RetryPeriod 0.5s, 10ms a request, three members,
//     one killed): the dead member's ranges held again 3.9 to 4.4s after
//     the kill, those the survivors swap 4.0 to 4.4s; on a loaded server
//     the requests add their time (three processes on a kube-apiserver
//     reading 2,000 ConfigMaps, issue 25: up to 5.6s and 6.8s).
//   - Deterministic and stable assignment: every member computes the same
//     owners from the same members; a join or leave moves about the
//     newcomer's (leaver's) share of the ranges and few others; shares
//     differ by at most one range.
//   - Bounded trust in what a Lease says. A Lease of the ring is trusted
//     for the leaseDurationSeconds written in it, but never longer than
//     [PeerTrust] (4) times the member's own LeaseDuration: one nobody
//     renews, whatever duration it asks for (2147483647 is 68 years), stops
//     counting as a member, blocking ranges or keeping its share unheld
//     that long after it last changed. A Lease whose ranges cannot be read
//     claims nothing, and one not named after the holder it names
//     ([MemberLeaseName]: no member wrote it) claims nothing either; their
//     holders are assigned nothing. Each member logs each such Lease once
//     per reason while the reason lasts, not at every poll, and counts it
//     ([RingStatus].Ignored).
//   - One process per identity, or an error. Every write of a member's
//     Lease carries a token drawn when Run started ([WriterAnnotation]). A
//     member that finds its Lease last written by another process before
//     it wrote it (an earlier process of its identity) writes nothing
//     until the Lease has not changed for as long as it is trusted; one
//     that finds a write by another process after its own (a Conflict it
//     did not cause, or a version in a list), or sees the Lease renewed
//     while it waits, stops every Work, writes nothing more, and [Member.Run]
//     returns an error naming the identity and the Lease that wraps
//     [ErrIdentityShared]. So two processes with one identity never hold a
//     range together: the second to start stops within about RetryPeriod
//     of the first's next renew; if the first stalled long enough for the
//     second to take the Lease over, the first stops when it is back.
//   - Tidy. A member that leaves deletes its Lease; the Lease of a member
//     that died, and any Lease of the ring nobody renews, is deleted by the
//     first member that sees it expire (a delete conditional on the version
//     it saw). For every member, a Lease gone is a member gone that
//     publishes nothing.
//   - No leaks. [NewMember] does no I/O and starts nothing; [Member.Run]
//     returns after every Work it started has returned.
//
// Cost: per member and per RetryPeriod, one Lease update and one list of
// the ring's Leases (a watch would cost the same: every renewal reaches
// every member either way), four lists while a claim waits, plus one
// update and list per range move.
//
// Limits: a member's Lease deleted by hand while it lives is taken as the
// member gone: do not delete a ring's Leases in use, nor edit them beyond
// their labels (a member whose writer token is gone stops). Members
// configured with different Ranges stay safe (claims are compared by hash
// bounds) but do not agree on an assignment, so ranges may stay unheld.
// Members whose LeaseDurations differ by more than PeerTrust times are
// not kept apart: the one with the longer duration is trusted for
// PeerTrust of the other's only. A member of another version whose ranges
// a member cannot read claims nothing for it: the members of one ring must
// write one format. A process restarted with the identity of one that
// died takes its Lease over only when it has not changed for as long as
// it is trusted, LeaseDuration when they are configured alike.
//
// Words, one per concept, as the packages that shard use them:
//   - shard field: what is hashed, an object's uid or its namespace
//     ([kube.ShardField]; RingOptions.Field, manager.ShardingOptions.Field).
//   - range: one of a ring's equal slices of the hash space ([Range]);
//     what a member claims, holds, drains and releases.
//   - shard selector: the request's selection of the objects whose hash
//     of the shard field falls in some ranges ([kube.ShardSelector],
//     made by [ShardSelector]); the server answers it with
//     metadata.shardInfo when it filtered.
//   - shard: the objects a shard selector selects, as a cache holds them
//     (cache.Informer.AddShard) and a controller works on them
//     (controller.Shards): the shard of a range held.
//   - work: what a member runs for each range it holds,
//     func(ctx, kube.ShardSelector) error, in the ring (RingOptions.Work)
//     as in the controller (controller.Shards.Work).
//   - sharded: a kind, informer or controller that holds only the shards
//     of the ranges held here.
//
// Usage of a ring:
//  1. Give each member a [kube.Client] of its own and make it with
//     [NewMember], naming the ring and the Work to run for each range held:
//     start taking the objects of the shard selector it is given (list and
//     watch them with it), and when ctx is cancelled stop taking new ones,
//     finish those in flight, and return. A sharded controller's work
//     (controller.Shards.Work) has this signature.
//  2. Call [Member.Run] with the process's context; it returns after the
//     member has left the ring.
//  3. Serve [Member.Status] on a metrics or health endpoint: a member with
//     assigned ranges and none held is not ready.
package leader
