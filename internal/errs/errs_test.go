// SPDX-License-Identifier: Apache-2.0

package errs

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

type codeError struct{ code int }

func (e *codeError) Error() string { return fmt.Sprint("code ", e.code) }

// asCode is an error that says, through its As method, that it is a
// *codeError without holding one.
type asCode struct{}

func (asCode) Error() string { return "as code" }
func (asCode) As(target any) bool {
	if p, ok := target.(**codeError); ok {
		*p = &codeError{code: 7}
		return true
	}
	return false
}

// TestAsMatchesErrorsAs checks As against errors.As on the shapes of
// error trees: the error itself, wrapped once and twice, joined, an As
// method, and nothing to find.
func TestAsMatchesErrorsAs(t *testing.T) {
	c1, c2 := &codeError{1}, &codeError{2}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"nil", nil},
		{"itself", c1},
		{"wrapped", fmt.Errorf("a: %w", c1)},
		{"wrapped twice", fmt.Errorf("b: %w", fmt.Errorf("a: %w", c1))},
		{"joined, second", errors.Join(errors.New("x"), c2)},
		{"joined, first of two", errors.Join(c1, c2)},
		{"wrapped in joined", errors.Join(errors.New("x"), fmt.Errorf("a: %w", c2))},
		{"multiple %w", fmt.Errorf("%w and %w", errors.New("x"), c2)},
		{"As method", fmt.Errorf("a: %w", asCode{})},
		{"none", fmt.Errorf("a: %w", errors.New("x"))},
		{"none, joined", errors.Join(errors.New("x"), &fs.PathError{Op: "open", Path: "p", Err: errors.New("y")})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want *codeError
			wantOK := errors.As(tc.err, &want)
			got, ok := As[*codeError](tc.err)
			if ok != wantOK || (ok && got.code != want.code) || (!ok && got != nil) {
				t.Errorf("As(%v) = %v, %v, want %v, %v (errors.As)", tc.err, got, ok, want, wantOK)
			}
		})
	}
}

// TestAsInterface checks that E may be an interface type, as for
// net.Error.
func TestAsInterface(t *testing.T) {
	type coder interface {
		error
		Code() int
	}
	err := fmt.Errorf("a: %w", codeOf(3))
	got, ok := As[coder](err)
	if !ok || got.Code() != 3 {
		t.Errorf("As[coder](%v) = %v, %v, want code 3, true", err, got, ok)
	}
}

type codeOf int

func (c codeOf) Error() string { return "code" }
func (c codeOf) Code() int     { return int(c) }

// TestErrorfIsFmtErrorf checks that Errorf makes the error fmt.Errorf
// makes: the same text, the %w operands unwrapped, a constant format
// as it is.
func TestErrorfIsFmtErrorf(t *testing.T) {
	inner := &codeError{3}
	for _, tc := range []struct {
		format string
		args   []any
	}{
		{"plain", nil},
		{"no %% operand", nil},
		{"read %s: %w", []any{"x", inner}},
		{"both %w and %w", []any{inner, fs.ErrNotExist}},
	} {
		got, want := Errorf(tc.format, tc.args...), fmt.Errorf(tc.format, tc.args...)
		if got.Error() != want.Error() {
			t.Errorf("Errorf(%q) = %q, fmt.Errorf gives %q", tc.format, got, want)
		}
		if errors.Is(got, inner) != errors.Is(want, inner) || errors.Is(got, fs.ErrNotExist) != errors.Is(want, fs.ErrNotExist) {
			t.Errorf("Errorf(%q) does not wrap what fmt.Errorf wraps", tc.format)
		}
	}
}
