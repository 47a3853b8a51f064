// SPDX-License-Identifier: Apache-2.0

// Package queue is the work queue of a controller: event handlers add items
// (usually object keys), workers take them with [Queue.Get], process them and
// hand them back with [Queue.Done].
//
// A [Queue] guarantees:
//
//   - Fair: items of one priority are handed out in the order they were
//     queued (FIFO).
//   - Stingy: an item added many times before it is handed out is handed out
//     once.
//   - Never processed concurrently: an item is handed to at most one worker
//     at a time. An item added while it is being processed is queued again
//     when [Queue.Done] is called for it, not before.
//   - Prioritised: an item with a higher priority is handed out before one
//     with a lower priority, so a resync or an initial list of many objects,
//     added with a low priority, does not delay a real change. Adding a
//     queued item again with a higher priority raises it.
//   - Never starved: once a low-priority item has waited
//     [Options.MaxPriorityWait], newer items of higher priority can no longer
//     hold it back: the oldest overdue item gets at least every other
//     hand-out (the aging rule, below).
//   - Delays: [Queue.AddAfter] adds an item once its delay has passed; for an
//     item that is already waiting, the earlier deadline wins. A zero or
//     negative delay adds now.
//   - Shutdown notifications: [Queue.ShutDown] wakes every waiting
//     [Queue.Get], which returns ok = false, as does every later Get. Items
//     still queued or delayed are dropped; items being processed may still
//     be passed to Done, and [Queue.ShutDownWithDrain] waits for them.
//   - Goroutines: [New] starts none and does no I/O. The first delayed add
//     ([Queue.AddAfter], [Queue.AddRateLimited]) starts one goroutine, which
//     owns the waiting items and one timer; ShutDown stops it and waits for it.
//   - No panics from zero values: a [Queue] that [New] did not make (a zero
//     Queue or a nil pointer) is shut down: adds are dropped and Get returns
//     ok = false at once. The zero value of every other exported type works,
//     and a nil rate limiter delays nothing. TestZeroValues walks the
//     exported API for this.
//
// # Aging rule
//
// An item is overdue once it has been queued for at least MaxPriorityWait
// (default [DefaultMaxPriorityWait], 5s). Each Get chooses:
//
//  1. the oldest queued item (by the time it entered the queue), if it is
//     overdue, it is not the item of rule 2, and the previous Get did not
//     choose by this rule;
//  2. otherwise the first item of the highest queued priority.
//
// So while items are overdue, at least every other Get hands out the oldest
// of them: an item that is overdue is handed out within 2(k+1) Gets, where k
// is the number of items that entered the queue before it and are still
// queued, however many items of higher priority arrive. The other Gets still
// follow priority, so when a large backlog of low-priority items is overdue,
// a new high-priority item waits for at most one of them. An item enters the
// queue at its first Add, or, if it was added while being processed, at its
// Done; raising its priority does not change that time.
//
// # Rate limiting
//
// [Queue.AddRateLimited] asks the queue's [RateLimiter] how long the item
// should wait. [NewDefaultRateLimiter] is the longer of a per-item
// exponential backoff ([NewExponentialRateLimiter], 5ms doubling to 1000s)
// and an overall token bucket ([NewBucketRateLimiter], 10 qps, burst 100).
// Call [Queue.Forget] when an item succeeds, so its backoff starts over.
//
// # Metrics
//
// [Queue.Metrics] returns a snapshot of counters and histograms named after
// the workqueue_* metrics the manager exports. They are kept under the
// queue's lock without allocation; [Options.DisableMetrics] drops the
// time-based ones.
//
// # Cost
//
// Add, Get and Done are amortised O(1) (O(b) for b distinct priorities
// queued at once, in practice a handful) and allocate only when the queue
// grows past its largest size so far; memory is kept at that high-water
// mark. Delayed adds are O(log n) for n waiting items.
//
// # Usage
//
//  1. Create a queue with [New] and a [Options].
//  2. From event handlers, call [Queue.Add] (or [Queue.AddWithOptions] with a
//     priority).
//  3. In each worker, loop on [Queue.Get] until it returns ok = false; after
//     processing call [Queue.Done], and either [Queue.Forget] on success or
//     [Queue.AddRateLimited] to retry.
//  4. To stop, call [Queue.ShutDown], or [Queue.ShutDownWithDrain] to wait
//     for the workers' current items.
package queue
