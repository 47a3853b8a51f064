// SPDX-License-Identifier: Apache-2.0

package podsub

import (
	"slices"
	"strconv"
	"strings"
)

// This file writes the unified diff the real server appends to "may not
// be changed": apimachinery's diff.Diff, lines compared as Python's
// difflib.SequenceMatcher compares them (the Go port kube-apiserver
// uses), three lines of context, no file headers.

// match is a block of equal lines: a[i:i+n] == b[j:j+n].
type match struct{ i, j, n int }

// opcode is one step from a to b: 'e'qual, 'r'eplace, 'd'elete or
// 'i'nsert of a[i1:i2] and b[j1:j2].
type opcode struct {
	tag            byte
	i1, i2, j1, j2 int
}

// matcher compares two lists of lines as difflib's SequenceMatcher
// without a junk function.
type matcher struct {
	a, b []string
	b2j  map[string][]int
}

func newMatcher(a, b []string) *matcher {
	m := &matcher{a: a, b: b, b2j: map[string][]int{}}
	for j, line := range b {
		m.b2j[line] = append(m.b2j[line], j)
	}
	if n := len(b); n >= 200 { // autojunk: the popular lines are not indexed
		for line, js := range m.b2j {
			if len(js) > n/100+1 {
				delete(m.b2j, line)
			}
		}
	}
	return m
}

// longest is the longest block of equal lines in a[alo:ahi] and
// b[blo:bhi], the earliest of those as long.
func (m *matcher) longest(alo, ahi, blo, bhi int) match {
	best := match{alo, blo, 0}
	j2len := map[int]int{}
	for i := alo; i < ahi; i++ {
		next := map[int]int{}
		for _, j := range m.b2j[m.a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := j2len[j-1] + 1
			next[j] = k
			if k > best.n {
				best = match{i - k + 1, j - k + 1, k}
			}
		}
		j2len = next
	}
	for best.i > alo && best.j > blo && m.a[best.i-1] == m.b[best.j-1] {
		best = match{best.i - 1, best.j - 1, best.n + 1}
	}
	for best.i+best.n < ahi && best.j+best.n < bhi && m.a[best.i+best.n] == m.b[best.j+best.n] {
		best.n++
	}
	return best
}

// blocks are the matching blocks in order, adjacent ones joined, ending
// with the empty block at the ends.
func (m *matcher) blocks() []match {
	queue := [][4]int{{0, len(m.a), 0, len(m.b)}}
	var found []match
	for len(queue) > 0 {
		q := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		x := m.longest(q[0], q[1], q[2], q[3])
		if x.n == 0 {
			continue
		}
		found = append(found, x)
		if q[0] < x.i && q[2] < x.j {
			queue = append(queue, [4]int{q[0], x.i, q[2], x.j})
		}
		if x.i+x.n < q[1] && x.j+x.n < q[3] {
			queue = append(queue, [4]int{x.i + x.n, q[1], x.j + x.n, q[3]})
		}
	}
	slices.SortFunc(found, func(x, y match) int {
		if x.i != y.i {
			return x.i - y.i
		}
		return x.j - y.j
	})
	var out []match
	cur := match{}
	for _, x := range found {
		if cur.i+cur.n == x.i && cur.j+cur.n == x.j {
			cur.n += x.n
			continue
		}
		if cur.n > 0 {
			out = append(out, cur)
		}
		cur = x
	}
	if cur.n > 0 {
		out = append(out, cur)
	}
	return append(out, match{len(m.a), len(m.b), 0})
}

// opcodes are the steps from a to b.
func (m *matcher) opcodes() []opcode {
	var out []opcode
	i, j := 0, 0
	for _, x := range m.blocks() {
		var tag byte
		switch {
		case i < x.i && j < x.j:
			tag = 'r'
		case i < x.i:
			tag = 'd'
		case j < x.j:
			tag = 'i'
		}
		if tag != 0 {
			out = append(out, opcode{tag, i, x.i, j, x.j})
		}
		i, j = x.i+x.n, x.j+x.n
		if x.n > 0 {
			out = append(out, opcode{'e', x.i, i, x.j, j})
		}
	}
	return out
}

// grouped are the hunks of opcodes with n lines of context.
func (m *matcher) grouped(n int) [][]opcode {
	codes := m.opcodes()
	if len(codes) == 0 {
		codes = []opcode{{'e', 0, 1, 0, 1}}
	}
	if c := &codes[0]; c.tag == 'e' {
		c.i1, c.j1 = max(c.i1, c.i2-n), max(c.j1, c.j2-n)
	}
	if c := &codes[len(codes)-1]; c.tag == 'e' {
		c.i2, c.j2 = min(c.i2, c.i1+n), min(c.j2, c.j1+n)
	}
	var groups [][]opcode
	var group []opcode
	for _, c := range codes {
		if c.tag == 'e' && c.i2-c.i1 > 2*n {
			group = append(group, opcode{'e', c.i1, min(c.i2, c.i1+n), c.j1, min(c.j2, c.j1+n)})
			groups = append(groups, group)
			group = nil
			c.i1, c.j1 = max(c.i1, c.i2-n), max(c.j1, c.j2-n)
		}
		group = append(group, c)
	}
	if len(group) > 0 && !(len(group) == 1 && group[0].tag == 'e') {
		groups = append(groups, group)
	}
	return groups
}

// unifiedDiff is the unified diff of texts a and b, three lines of
// context, as go-difflib writes it without file names.
func unifiedDiff(a, b string) string {
	split := func(s string) []string {
		lines := strings.SplitAfter(s, "\n")
		lines[len(lines)-1] += "\n"
		return lines
	}
	la, lb := split(a), split(b)
	var out strings.Builder
	for _, g := range newMatcher(la, lb).grouped(3) {
		first, last := g[0], g[len(g)-1]
		out.WriteString("@@ -" + unifiedRange(first.i1, last.i2) + " +" + unifiedRange(first.j1, last.j2) + " @@\n")
		for _, c := range g {
			if c.tag == 'e' {
				for _, l := range la[c.i1:c.i2] {
					out.WriteString(" " + l)
				}
				continue
			}
			if c.tag == 'r' || c.tag == 'd' {
				for _, l := range la[c.i1:c.i2] {
					out.WriteString("-" + l)
				}
			}
			if c.tag == 'r' || c.tag == 'i' {
				for _, l := range lb[c.j1:c.j2] {
					out.WriteString("+" + l)
				}
			}
		}
	}
	return out.String()
}

// unifiedRange is a hunk's range as the unified format writes it.
func unifiedRange(start, stop int) string {
	begin, length := start+1, stop-start
	if length == 1 {
		return strconv.Itoa(begin)
	}
	if length == 0 {
		begin--
	}
	return strconv.Itoa(begin) + "," + strconv.Itoa(length)
}
