// SPDX-License-Identifier: Apache-2.0

// Package errs holds [As], the errors.As of kube, controller and
// internal/yaml, and [Errorf], the out-of-line fmt.Errorf of their cold
// error paths. It imports only the standard library.
package errs

import "fmt"

// As finds the first error in err's tree that is an E, and returns it
// and true; it returns the zero E and false when there is none. It
// walks the tree as errors.As does (depth first: err, then what its
// Unwrap() error or Unwrap() []error returns, in order) and honours an
// error's own As(any) bool method; unlike errors.As, it cannot panic,
// and E must be an error type.
//
// errors.As matches by reflection (its assignability checks and
// internal/reflectlite cost about 24 kB of every program's binary);
// As matches by type assertion. It is errors.AsType of Go 1.26, which
// replaces it once the module requires Go 1.26.
func As[E error](err error) (E, bool) {
	var zero E
	for err != nil {
		if e, ok := err.(E); ok {
			return e, true
		}
		if x, ok := err.(interface{ As(any) bool }); ok {
			var e E
			if x.As(&e) {
				return e, true
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				if e, ok := As[E](inner); ok {
					return e, true
				}
			}
			return zero, false
		default:
			return zero, false
		}
	}
	return zero, false
}

// Errorf is fmt.Errorf behind a call: the same error, with the same
// text and %w wrapping. fmt.Errorf is inlined at each call site (its
// fast path and an errors.New); a package's cold error paths call
// Errorf instead, to keep those copies out of every program (cmd/mirror's
// TestBinarySize).
//
//go:noinline
func Errorf(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}
