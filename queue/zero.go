// SPDX-License-Identifier: Apache-2.0

package queue

// made reports whether q was made by [New]. A Queue that was not (a nil
// pointer or a zero Queue) is shut down: adds are dropped and Get returns
// at once, false.
func (q *Queue[K]) made() bool { return q != nil && q.limiter != nil }
