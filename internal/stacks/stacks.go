// SPDX-License-Identifier: Apache-2.0

// Package stacks counts goroutines by what they run, for tests that check
// that a part left none behind. Counting all goroutines would see other
// tests' come and go; counting those whose stack holds a function of the
// part does not.
package stacks

import (
	"runtime"
	"strings"
)

// Count returns how many goroutines of this process hold fn in their
// stack (a function's name as a stack trace spells it, for example
// "cache.(*reflector).run"). Cost: a dump of every goroutine's stack.
func Count(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			count++
		}
	}
	return count
}
