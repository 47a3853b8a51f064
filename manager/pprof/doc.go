// SPDX-License-Identifier: Apache-2.0

// Package pprof serves the Go runtime's profiles over HTTP, for go tool
// pprof: a controller program's opt-in profiling endpoint
// (controller-runtime's Options.PprofBindAddress). A [Server] is a
// runnable of a manager, which starts it first (it has a Listen method:
// an address in use fails the manager's Start) and stops it last, on
// every replica; it also runs alone.
//
// Guarantees:
//
//   - Linked only when asked for: a program that does not import this
//     package links none of it, nor runtime/pprof. net/http/pprof is not
//     used, so http.DefaultServeMux gets no handler.
//   - Bounded: a CPU profile lasts at most 600 seconds, and ends when the
//     server stops; only one runs at a time (another is refused with
//     500, as runtime/pprof allows one).
//   - Not authenticated: bind it to loopback, or to an address only the
//     operators reach.
//
// Paths, under /debug/pprof/:
//
//   - "" (the index): the profiles, one a line, with their counts;
//   - profile?seconds=N: a CPU profile of N seconds (30 by default);
//   - heap, allocs, goroutine, block, mutex, threadcreate (any
//     runtime/pprof profile) ?debug=N: the profile, in the protocol
//     buffer format (debug=0) or as text; heap with gc=1 collects first;
//   - cmdline: the program's arguments, separated by NUL bytes.
//
// Where it departs from net/http/pprof: no execution trace, no symbol
// lookup and no delta profiles (?seconds= on heap); go tool pprof needs
// none of them for the profiles above.
//
// Usage:
//
//  1. Make a server with [New] and add it to the manager:
//     mgr.Add(srv).
//  2. Read a profile: go tool pprof http://127.0.0.1:8082/debug/pprof/heap
package pprof
