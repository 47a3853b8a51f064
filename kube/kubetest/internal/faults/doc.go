// SPDX-License-Identifier: Apache-2.0

// Package faults keeps the rules of the faults a test injects into
// kubetest's server and applies them: requests failed ([Failures],
// Server.FailNext) or held ([Delays], Server.Delay) before they are
// served, watch events held back ([Lag], Server.LagWatches), and answers that misbehave in their body ([Rules]: a list that
// never ends, a watch that never says anything). The server owns the
// rules and guards them with its lock; I is its request description,
// which the rules' matchers take.
//
// Guarantees:
//   - Matchers run without the owner's lock: the owner clones the rules
//     under its lock and matches the clone, so a matcher may call the
//     server.
//   - A failure rule is used at most n times, even by requests matched
//     at once: each use is taken under the owner's lock ([Failures.Take]),
//     and a rule used up or removed meanwhile is passed over.
//   - A wait and a misbehaving answer end when the client goes away or
//     the server's done channel is closed; nothing is left running.
//
// Nothing here is safe for concurrent use by itself.
package faults
