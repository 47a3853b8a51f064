// SPDX-License-Identifier: Apache-2.0

// Package race tells a test whether its binary was built with -race.
//
// A build constraint (//go:build !race) would hide a file from the
// compiler and from go vet in a race build, and the README's test command
// is one: `go test -race -vet=all ./...` vets only what it compiles.
// Asking at run time keeps every file compiled and vetted, and lets a
// test skip what the race detector distorts (heap peaks, timings).
package race

import (
	"runtime/debug"
	"sync"
)

// Enabled reports whether the running binary was built with -race, as its
// build information records (debug.ReadBuildInfo's "-race" setting). A
// binary without build information reports false. The answer is read
// once and kept.
var Enabled = sync.OnceValue(func() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
})
