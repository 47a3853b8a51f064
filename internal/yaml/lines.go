// SPDX-License-Identifier: Apache-2.0

package yaml

import (
	"fmt"
	"strings"
)

// lineKind classifies a line for the block parser.
type lineKind uint8

const (
	blankLine   lineKind = iota // nothing but spaces and tabs
	commentLine                 // the first non-blank byte is '#'
	contentLine                 // anything else
)

// line is one line of the document, without its line break.
type line struct {
	num  int    // counting from 1
	text string // the whole line, indentation included
	// indent is the offset of the first byte that is not a space or a tab
	// (len(text) for a blank line).
	indent int
	kind   lineKind
	// tab is set when a tab appears before the content: an error when the
	// line starts a block node, harmless inside a folded scalar.
	tab bool
}

// errAt returns a *SyntaxError at byte offset col of ln.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func errAt(ln *line, col int, format string, args ...any) error {
	return &SyntaxError{Line: ln.num, Column: col + 1, Msg: fmt.Sprintf(format, args...)}
}

// splitLines cuts data into lines and handles the document markers: a
// leading "---" is dropped, a "..." ends the document, and a second "---"
// followed by content is an error (one document only).
func splitLines(data []byte) ([]line, error) {
	raws := strings.Split(string(data), "\n")
	lines := make([]line, 0, len(raws))
	sawContent := false
	for i, raw := range raws {
		ln := classify(i+1, strings.TrimSuffix(raw, "\r"))
		if ln.kind == contentLine && ln.indent == 0 {
			switch marker(ln.text) {
			case "---":
				if !sawContent {
					if err := markerRest(&ln, "---"); err != nil {
						return nil, err
					}
					ln.kind = blankLine
					lines = append(lines, ln)
					continue
				}
				return lines, endOfDocument(&ln, raws[i+1:], "multiple documents are not supported")
			case "...":
				if err := markerRest(&ln, "..."); err != nil {
					return nil, err
				}
				return lines, endOfDocument(&ln, raws[i+1:], "content after the document end marker (...) is not supported")
			}
			if ln.text[0] == '%' && !sawContent {
				return nil, errAt(&ln, 0, "directives (%%) are not supported")
			}
		}
		if ln.kind == contentLine {
			sawContent = true
		}
		lines = append(lines, ln)
	}
	return lines, nil
}

// classify measures the indentation of raw and says what kind of line it is.
func classify(num int, raw string) line {
	ln := line{num: num, text: raw, kind: contentLine}
	i := 0
	for i < len(raw) && isWS(raw[i]) {
		ln.tab = ln.tab || raw[i] == '\t'
		i++
	}
	ln.indent = i
	switch {
	case i == len(raw):
		ln.kind = blankLine
	case raw[i] == '#':
		ln.kind = commentLine
	}
	return ln
}

// marker returns "---" or "..." when raw is a document marker line.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func marker(raw string) string {
	for _, m := range []string{"---", "..."} {
		if strings.HasPrefix(raw, m) && (len(raw) == 3 || raw[3] == ' ' || raw[3] == '\t') {
			return m
		}
	}
	return ""
}

// markerRest checks that nothing but a comment follows a marker.
func markerRest(ln *line, m string) error {
	rest := strings.TrimLeft(ln.text[len(m):], " \t")
	if rest != "" && rest[0] != '#' {
		return errAt(ln, len(ln.text)-len(rest), "content on the %s line is not supported: put it on the next line", m)
	}
	return nil
}

// endOfDocument accepts the lines after a marker only when they hold no
// content (blank lines, comments and further markers).
func endOfDocument(at *line, rest []string, msg string) error {
	for i, raw := range rest {
		ln := classify(at.num+1+i, strings.TrimSuffix(raw, "\r"))
		if ln.kind == contentLine && marker(ln.text) == "" {
			return errAt(at, 0, "%s", msg)
		}
	}
	return nil
}

// isWS reports whether c separates tokens within a line.
func isWS(c byte) bool { return c == ' ' || c == '\t' }

// skipWS returns the offset of the first byte at or after i in s that is
// not a space or a tab.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func skipWS(s string, i int) int {
	for i < len(s) && isWS(s[i]) {
		i++
	}
	return i
}

// isEntry reports whether s starts with a block sequence entry ("- " or a
// lone "-").
func isEntry(s string) bool {
	return len(s) > 0 && s[0] == '-' && (len(s) == 1 || isWS(s[1]))
}

// atComment reports whether s[i:] is the end of the line or a comment that
// may start at i (a '#' is a comment only after a space or at the start).
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func atComment(s string, i int) bool {
	return i >= len(s) || (s[i] == '#' && (i == 0 || isWS(s[i-1])))
}
