// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"fmt"
	"strings"
	"testing"
)

// lineDiff returns a unified diff of a and b by lines ("-" for a, "+" for
// b), with three lines of context around each change. It takes the longest
// common subsequence of the lines: O(len(a)*len(b)), for the small texts of
// test outputs.
func lineDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	// lcs[i][j] is the length of the longest common subsequence of x[i:]
	// and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte // ' ', '-' or '+'
		text string
		ai   int // line number in a, 1-based, at or before this line
		bi   int
	}
	var lines []line
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			lines = append(lines, line{' ', x[i], i + 1, j + 1})
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] > lcs[i+1][j]):
			lines = append(lines, line{'+', y[j], i, j + 1})
			j++
		default:
			lines = append(lines, line{'-', x[i], i + 1, j})
			i++
		}
	}
	const context = 3
	var out strings.Builder
	for k := 0; k < len(lines); {
		if lines[k].op == ' ' {
			k++
			continue
		}
		start := max(k-context, 0)
		end := k
		// Extend the hunk while changes are within 2*context of each other.
		for end < len(lines) {
			if lines[end].op != ' ' {
				end++
				continue
			}
			next := end
			for next < len(lines) && lines[next].op == ' ' {
				next++
			}
			if next == len(lines) || next-end > 2*context {
				end = min(end+context, len(lines))
				break
			}
			end = next
		}
		fmt.Fprintf(&out, "@@ -%d +%d @@\n", lines[start].ai, lines[start].bi)
		for _, l := range lines[start:end] {
			out.WriteByte(l.op)
			out.WriteString(l.text)
			out.WriteByte('\n')
		}
		k = end
	}
	return out.String()
}

func TestLineDiff(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"x\ny", "x\ny", ""},
		{"a\nb\nc", "a\nB\nc", "@@ -1 +1 @@\n a\n-b\n+B\n c\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9", "1\n2\n3\n4\n5\n6\n7\n8\nnine", "@@ -6 +6 @@\n 6\n 7\n 8\n-9\n+nine\n"},
		{"", "new", "@@ -1 +0 @@\n-\n+new\n"},
	} {
		if got := lineDiff(tc.a, tc.b); got != tc.want {
			t.Errorf("lineDiff(%q, %q) =\n%s\nwant\n%s", tc.a, tc.b, got, tc.want)
		}
	}
}
