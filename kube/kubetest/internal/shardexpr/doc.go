// SPDX-License-Identifier: Apache-2.0

// Package shardexpr parses a ?shardSelector= as kube-apiserver 1.36 does
// with the ShardedListAndWatch feature gate on: the CEL grammar, parsed
// into a syntax tree of the shape cel-go builds (never evaluated), then
// walked as the real server walks it, accepting shardRange() calls joined
// by || and refusing the rest with the real server's messages.
//
// [Parse] is the entry point; it is pure and safe for concurrent use.
package shardexpr
