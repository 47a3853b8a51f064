// SPDX-License-Identifier: Apache-2.0

package yaml

import (
	"strings"
	"unicode/utf8"
)

// parseInline reads the value that starts at byte col of the current line
// and is not a block collection: a plain or quoted scalar (which may fold
// over the following lines) or a one-line flow collection. parent is the
// indentation of the enclosing collection.
func (p *parser) parseInline(col, parent, depth int) (*Node, error) {
	ln := &p.lines[p.i]
	var (
		n    *Node
		last = ln // the line the value ends on
		end  int  // the offset just after the value on last
		what string
	)
	switch ln.text[col] {
	case '"', '\'':
		text, endNum, e, err := p.scanQuoted(ln, col)
		if err != nil {
			return nil, err
		}
		n = &Node{Kind: Scalar, Line: ln.num, Column: col + 1, Text: text, Quoted: true}
		last, end, what = &p.lines[endNum-1], e, "quoted value"
	case '[', '{':
		var err error
		if n, end, err = p.flowNode(ln, col, depth); err != nil {
			return nil, err
		}
		what = "flow collection"
	default:
		if err := indicatorError(ln, col); err != nil {
			return nil, err
		}
		return p.parsePlain(col, parent)
	}
	if j := skipWS(last.text, end); !atComment(last.text, j) {
		return nil, errAt(last, j, "unexpected text after the %s", what)
	}
	p.i = last.num // lines[num-1] is the line numbered num
	return n, nil
}

// parsePlain reads a plain scalar from byte col of the current line and
// folds into it the following lines indented more than parent: each line
// break becomes a space, each blank line a newline.
func (p *parser) parsePlain(col, parent int) (*Node, error) {
	ln := &p.lines[p.i]
	end, colon := scanPlain(ln.text, col)
	if colon >= 0 {
		return nil, errAt(ln, colon, "unexpected ':' in a value: quote the value, or start the mapping on its own line")
	}
	start := ln.num
	var b strings.Builder
	b.WriteString(trimRightWS(ln.text[col:end]))
	p.i++
	folded := false
	for blanks, j := 0, p.i; end == len(ln.text) && j < len(p.lines); j++ {
		next := &p.lines[j]
		if next.kind == blankLine {
			blanks++
			continue
		}
		if next.kind == commentLine || next.indent <= parent {
			break
		}
		e, c := scanPlain(next.text, next.indent)
		if c >= 0 {
			return nil, errAt(next, c, "unexpected ':' in a value that continues the value of line %d: quote the value or check the indentation", ln.num)
		}
		if blanks == 0 {
			b.WriteByte(' ')
		}
		for range blanks { // not strings.Repeat, which adds 5 kB to a program
			b.WriteByte('\n')
		}
		b.WriteString(trimRightWS(next.text[next.indent:e]))
		blanks, folded, p.i = 0, true, j+1
		ln, end = next, e
	}
	return scalarNode(b.String(), folded, start, col), nil
}

// scalarNode makes the node of a plain scalar read at line num, byte col:
// null when the text is empty, "~" or "null" on one line.
func scalarNode(text string, folded bool, num, col int) *Node {
	n := &Node{Kind: Scalar, Line: num, Column: col + 1, Text: text}
	if !folded {
		switch text {
		case "", "~", "null", "Null", "NULL":
			n.Kind, n.Text = Null, ""
		}
	}
	return n
}

// scanPlain finds the end of the plain scalar that starts at s[start] in
// block context. end is the offset of the comment that stops it, of the
// mapping colon, or len(s); colon is the offset of a ':' followed by a space
// or the end of the line (which makes the scalar a key), or -1.
func scanPlain(s string, start int) (end, colon int) {
	for j := start; j < len(s); j++ {
		switch s[j] {
		case '#':
			if j > start && isWS(s[j-1]) {
				return j, -1
			}
		case ':':
			if j+1 == len(s) || isWS(s[j+1]) {
				return j, j
			}
		}
	}
	return len(s), -1
}

// plainStart reports whether a plain scalar may start at s[i].
func plainStart(s string, i int) bool {
	c := s[i]
	switch c {
	case '|', '>', '&', '*', '!', '@', '`', '%', ',', '[', ']', '{', '}', '#', '"', '\'':
		return false
	case '-', '?', ':':
		return i+1 < len(s) && !isWS(s[i+1])
	}
	return true
}

// indicatorError explains why no value can start at byte pos of ln, or
// returns nil when a plain scalar can.
func indicatorError(ln *line, pos int) error {
	if plainStart(ln.text, pos) {
		return nil
	}
	switch c := ln.text[pos]; c {
	case '|', '>':
		return errAt(ln, pos, "block scalars (%c) are not supported: write the value on one line, quoted if needed", c)
	case '&':
		return errAt(ln, pos, "anchors (&) are not supported")
	case '*':
		return errAt(ln, pos, "aliases (*) are not supported")
	case '!':
		return errAt(ln, pos, "tags (!) are not supported")
	case '?':
		return errAt(ln, pos, "complex keys (?) are not supported")
	case ':':
		return errAt(ln, pos, "unexpected ':': the key is missing")
	case '-':
		return errAt(ln, pos, "a sequence entry (- ) cannot start here: put the sequence on the following lines")
	default:
		return errAt(ln, pos, "unexpected %q: quote the value if it starts with it", c)
	}
}

// scanQuoted reads the quoted scalar whose opening quote is at byte col of
// ln; it may continue over the following lines, which fold as in a plain
// scalar. It returns the value and the line number and offset just after
// the closing quote.
func (p *parser) scanQuoted(ln *line, col int) (text string, endNum, end int, err error) {
	q := ln.text[col]
	var b []byte
	keep := 0 // b[:keep] survives the trimming of trailing spaces at a fold
	idx, s, i := ln.num-1, ln.text, col+1
	for {
		if i >= len(s) {
			escapedBreak := i > len(s)
			if !escapedBreak {
				b = b[:keep]
			}
			blanks := 0
			for {
				idx++
				if idx == len(p.lines) {
					return "", 0, 0, errAt(ln, col, "unterminated quoted value: the closing %c is missing", q)
				}
				if p.lines[idx].kind != blankLine {
					break
				}
				blanks++
			}
			if blanks == 0 && !escapedBreak {
				b = append(b, ' ')
			}
			for range blanks {
				b = append(b, '\n')
			}
			keep = len(b)
			s = p.lines[idx].text
			i = skipWS(s, 0)
			continue
		}
		c := s[i]
		switch {
		case c == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b = append(b, '\'')
			i += 2
		case c == q:
			return string(b), idx + 1, i + 1, nil
		case c == '\\' && q == '"' && i+1 == len(s):
			i += 2 // an escaped line break: fold without a space
			keep = len(b)
			continue
		case c == '\\' && q == '"':
			var n int
			var ok bool
			if b, n, ok = appendEscape(b, s[i+1:]); !ok {
				return "", 0, 0, &SyntaxError{Line: idx + 1, Column: i + 1, Msg: "invalid escape sequence in a double-quoted value"}
			}
			i += 1 + n
		default:
			b = append(b, c)
			i++
			if isWS(c) {
				continue
			}
		}
		keep = len(b)
	}
}

// appendEscape decodes the escape sequence at the start of s (the text after
// a backslash), appends its value to b and says how many bytes it used.
func appendEscape(b []byte, s string) (_ []byte, n int, ok bool) {
	if len(s) == 0 {
		return b, 0, false
	}
	if v := simpleEscape(s[0]); v != "" {
		return append(b, v...), 1, true
	}
	var digits int
	switch s[0] {
	case 'x':
		digits = 2
	case 'u':
		digits = 4
	case 'U':
		digits = 8
	}
	if digits == 0 || len(s) < 1+digits {
		return b, 0, false
	}
	var r rune
	for _, h := range []byte(s[1 : 1+digits]) {
		var v byte
		switch {
		case '0' <= h && h <= '9':
			v = h - '0'
		case 'a' <= h && h <= 'f':
			v = h - 'a' + 10
		case 'A' <= h && h <= 'F':
			v = h - 'A' + 10
		default:
			return b, 0, false
		}
		r = r<<4 | rune(v)
	}
	if !utf8.ValidRune(r) {
		return b, 0, false
	}
	return utf8.AppendRune(b, r), 1 + digits, true
}

// simpleEscape returns the value of the one-letter escape \c, or "".
func simpleEscape(c byte) string {
	switch c {
	case '0':
		return "\x00"
	case 'a':
		return "\a"
	case 'b':
		return "\b"
	case 't', '\t':
		return "\t"
	case 'n':
		return "\n"
	case 'v':
		return "\v"
	case 'f':
		return "\f"
	case 'r':
		return "\r"
	case 'e':
		return "\x1b"
	case ' ', '"', '/', '\\':
		return string(c)
	case 'N':
		return "\u0085"
	case '_':
		return "\u00a0"
	case 'L':
		return "\u2028"
	case 'P':
		return "\u2029"
	}
	return ""
}

// trimRightWS drops trailing spaces and tabs.
func trimRightWS(s string) string { return strings.TrimRight(s, " \t") }
