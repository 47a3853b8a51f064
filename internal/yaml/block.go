// SPDX-License-Identifier: Apache-2.0

package yaml

// parser reads block collections line by line. Each parse method starts at
// a given line and byte offset and leaves p.i at the first line it did not
// consume. Nesting is bounded by the depth argument, checked against
// [MaxDepth] at every level.
type parser struct {
	lines []line
	i     int // index in lines of the next line to read
}

// peek moves p.i to the next content line and returns it; ok is false at the
// end of the document. A content line indented with a tab is an error.
func (p *parser) peek() (ln *line, ok bool, err error) {
	for p.i < len(p.lines) && p.lines[p.i].kind != contentLine {
		p.i++
	}
	if p.i == len(p.lines) {
		return nil, false, nil
	}
	ln = &p.lines[p.i]
	if ln.tab {
		return nil, false, errAt(ln, 0, "tabs are not allowed in indentation: use spaces")
	}
	return ln, true, nil
}

// tooDeep is the error for nesting beyond MaxDepth.
func tooDeep(ln *line, col int) error {
	return errAt(ln, col, "nesting deeper than %d levels is not supported", MaxDepth)
}

// parseBlock reads the node that starts at byte col of the current line:
// a block sequence, a block mapping or a scalar (or one-line flow
// collection). parent is the indentation of the enclosing collection (-1 at
// the top): the lines of a folded scalar must be indented more than it.
func (p *parser) parseBlock(col, parent, depth int) (*Node, error) {
	ln := &p.lines[p.i]
	if depth > MaxDepth {
		return nil, tooDeep(ln, col)
	}
	if isEntry(ln.text[col:]) {
		return p.parseSequence(col, depth)
	}
	if _, _, ok, err := p.scanKey(ln, col); err != nil {
		return nil, err
	} else if ok {
		return p.parseMapping(col, depth)
	}
	return p.parseInline(col, parent, depth)
}

// parseMapping reads a block mapping whose first key starts at byte col of
// the current line; the following keys must start lines indented by col.
func (p *parser) parseMapping(col, depth int) (*Node, error) {
	ln := &p.lines[p.i]
	if depth > MaxDepth {
		return nil, tooDeep(ln, col)
	}
	m := &Node{Kind: Mapping, Line: ln.num, Column: col + 1}
	seen := make(map[string]int)
	for {
		ln := &p.lines[p.i]
		if isEntry(ln.text[col:]) {
			return nil, errAt(ln, col, "expected a mapping key, found a sequence entry (check the indentation)")
		}
		key, vpos, ok, err := p.scanKey(ln, col)
		if err != nil {
			return nil, err
		}
		if !ok {
			// The line is not quoted: it may hold a secret.
			return nil, errAt(ln, col, "expected a mapping key (key: value)")
		}
		if first, dup := seen[key]; dup {
			return nil, errAt(ln, col, "duplicate key %q (first at line %d)", key, first)
		}
		seen[key] = ln.num
		val, err := p.parseValue(ln, vpos, col, depth+1)
		if err != nil {
			return nil, err
		}
		m.Entries = append(m.Entries, Entry{Key: key, Line: ln.num, Column: col + 1, Value: val})

		next, ok, err := p.peek()
		if err != nil {
			return nil, err
		}
		if !ok || next.indent < col {
			return m, nil
		}
		if next.indent > col {
			return nil, errAt(next, next.indent, "unexpected indentation: expected a key at column %d", col+1)
		}
	}
}

// parseValue reads the value of a mapping key at indentation col; the
// value starts at byte vpos of ln (after "key:"). An empty value takes the
// more indented lines that follow, or a sequence at the key's own
// indentation, or is null.
func (p *parser) parseValue(ln *line, vpos, col, depth int) (*Node, error) {
	vpos = skipWS(ln.text, vpos)
	if !atComment(ln.text, vpos) {
		return p.parseInline(vpos, col, depth)
	}
	null := &Node{Kind: Null, Line: ln.num, Column: vpos + 1}
	p.i++
	next, ok, err := p.peek()
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return null, nil
	case next.indent > col:
		return p.parseBlock(next.indent, col, depth)
	case next.indent == col && isEntry(next.text[col:]):
		return p.parseSequence(col, depth)
	}
	return null, nil
}

// parseSequence reads a block sequence whose first "-" is at byte col of
// the current line; the following entries must start lines indented by col.
func (p *parser) parseSequence(col, depth int) (*Node, error) {
	ln := &p.lines[p.i]
	if depth > MaxDepth {
		return nil, tooDeep(ln, col)
	}
	s := &Node{Kind: Sequence, Line: ln.num, Column: col + 1}
	for {
		ln := &p.lines[p.i]
		pos := skipWS(ln.text, col+1)
		var item *Node
		var err error
		if atComment(ln.text, pos) {
			item = &Node{Kind: Null, Line: ln.num, Column: pos + 1}
			p.i++
			next, ok, perr := p.peek()
			if perr != nil {
				return nil, perr
			}
			if ok && next.indent > col {
				item, err = p.parseBlock(next.indent, col, depth+1)
			}
		} else {
			item, err = p.parseBlock(pos, col, depth+1)
		}
		if err != nil {
			return nil, err
		}
		s.Items = append(s.Items, item)

		next, ok, err := p.peek()
		if err != nil {
			return nil, err
		}
		if !ok || next.indent < col {
			return s, nil
		}
		if next.indent > col {
			return nil, errAt(next, next.indent, "unexpected indentation: expected a sequence entry (- ) at column %d", col+1)
		}
		if !isEntry(next.text[col:]) {
			// A sequence written at its key's indentation ends where the
			// mapping's next key starts.
			return s, nil
		}
	}
}

// scanKey reports whether a mapping key ("key:" followed by a space or the
// end of the line) starts at byte col of ln, and returns the key and the
// offset just after the colon. A key fits on one line.
func (p *parser) scanKey(ln *line, col int) (key string, vpos int, ok bool, err error) {
	s := ln.text
	switch s[col] {
	case '"', '\'':
		val, endLine, end, err := p.scanQuoted(ln, col)
		if err != nil {
			return "", 0, false, err
		}
		if endLine != ln.num {
			return "", 0, false, nil
		}
		j := skipWS(s, end)
		if j < len(s) && s[j] == ':' && (j+1 == len(s) || isWS(s[j+1])) {
			return val, j + 1, true, nil
		}
		return "", 0, false, nil
	}
	if !plainStart(s, col) {
		return "", 0, false, nil
	}
	end, colon := scanPlain(s, col)
	if colon < 0 {
		return "", 0, false, nil
	}
	return trimRightWS(s[col:end]), colon + 1, true, nil
}
