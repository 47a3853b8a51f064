// SPDX-License-Identifier: Apache-2.0

package zerotest

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Good works on its zero value and on nil.
type Good struct{ items []int }

func (g *Good) Len() int {
	if g == nil {
		return 0
	}
	return len(g.items)
}

// Bad panics on its zero value when given a context.
type Bad struct{ m map[string]int }

func (b *Bad) Boom(ctx context.Context) { b.m["x"] = 1 }

// recorder is a T that keeps what Walk reports.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

// TestWalkReports: a panic names the type and the method, a type of the
// source missing from the list is named, a type that works passes.
func TestWalkReports(t *testing.T) {
	var r recorder
	Walk(&r, "testdata/sample", Types{Values: []any{new(Good), new(Bad)}})
	all := strings.Join(r.errs, "\n")
	for _, want := range []string{"(zero value Bad).Boom panics", "(nil pointer Bad).Boom panics", "exported type Missing has methods"} {
		if !strings.Contains(all, want) {
			t.Errorf("Walk reported:\n%s\nwant a line with %q", all, want)
		}
	}
	if strings.Contains(all, "Good") {
		t.Errorf("Walk reported Good, which works:\n%s", all)
	}
}
