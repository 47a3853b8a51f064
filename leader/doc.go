// SPDX-License-Identifier: Apache-2.0

// Package leader elects one leader among the replicas of a controller with
// a coordination.k8s.io/v1 Lease, written as client-go and controller-runtime
// write it.
//
// Guarantees:
//   - At most one leader, whatever the clocks say. A candidate takes the
//     Lease from another holder only when the record has not changed for
//     the leaseDurationSeconds written in it, measured on the candidate's own
//     monotonic clock from the moment it saw the record change. The holder's
//     acquireTime and renewTime are written for people and never trusted, so
//     skewed wall clocks cannot make two leaders; and the duration is the
//     holder's, not the candidate's, so candidates configured differently
//     cannot cut each other's leases short.
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
package leader
