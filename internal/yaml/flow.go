// SPDX-License-Identifier: Apache-2.0

package yaml

import "strings"

// flowNode reads the flow value that starts at or after byte pos of ln: a
// flow sequence, a flow mapping, or a scalar. Flow collections must close on
// the line they open. It returns the node and the offset just after it.
func (p *parser) flowNode(ln *line, pos, depth int) (*Node, int, error) {
	s := ln.text
	if depth > MaxDepth {
		return nil, 0, tooDeep(ln, pos)
	}
	pos = skipWS(s, pos)
	if atComment(s, pos) {
		return nil, 0, unclosedFlow(ln, pos)
	}
	switch s[pos] {
	case '[':
		return p.flowSequence(ln, pos, depth)
	case '{':
		return p.flowMapping(ln, pos, depth)
	case '"', '\'':
		text, end, err := p.flowQuoted(ln, pos)
		if err != nil {
			return nil, 0, err
		}
		return &Node{Kind: Scalar, Line: ln.num, Column: pos + 1, Text: text, Quoted: true}, end, nil
	}
	if err := indicatorError(ln, pos); err != nil {
		return nil, 0, err
	}
	end := scanFlowPlain(s, pos)
	return scalarNode(trimRightWS(s[pos:end]), false, ln.num, pos), end, nil
}

// flowSequence reads "[a, b, ...]" from the '[' at byte pos of ln.
func (p *parser) flowSequence(ln *line, pos, depth int) (*Node, int, error) {
	s := ln.text
	n := &Node{Kind: Sequence, Line: ln.num, Column: pos + 1}
	for pos++; ; {
		if pos = skipWS(s, pos); atComment(s, pos) {
			return nil, 0, unclosedFlow(ln, pos)
		}
		if s[pos] == ']' {
			return n, pos + 1, nil
		}
		item, end, err := p.flowNode(ln, pos, depth+1)
		if err != nil {
			return nil, 0, err
		}
		n.Items = append(n.Items, item)
		if pos = skipWS(s, end); atComment(s, pos) {
			return nil, 0, unclosedFlow(ln, pos)
		}
		switch s[pos] {
		case ',':
			pos++
		case ']':
			return n, pos + 1, nil
		default:
			return nil, 0, errAt(ln, pos, "expected ',' or ']' in a flow sequence, found %q", s[pos])
		}
	}
}

// flowMapping reads "{k: v, ...}" from the '{' at byte pos of ln. A key
// without a value ("{a, b}") maps to null.
func (p *parser) flowMapping(ln *line, pos, depth int) (*Node, int, error) {
	s := ln.text
	n := &Node{Kind: Mapping, Line: ln.num, Column: pos + 1}
	seen := make(map[string]bool)
	for pos++; ; {
		if pos = skipWS(s, pos); atComment(s, pos) {
			return nil, 0, unclosedFlow(ln, pos)
		}
		if s[pos] == '}' {
			return n, pos + 1, nil
		}
		kpos := pos
		var key string
		if c := s[pos]; c == '"' || c == '\'' {
			text, end, err := p.flowQuoted(ln, pos)
			if err != nil {
				return nil, 0, err
			}
			key, pos = text, end
		} else {
			if err := indicatorError(ln, pos); err != nil {
				return nil, 0, err
			}
			end := scanFlowPlain(s, pos)
			key, pos = trimRightWS(s[pos:end]), end
		}
		if seen[key] {
			return nil, 0, errAt(ln, kpos, "duplicate key %q", key)
		}
		seen[key] = true
		pos = skipWS(s, pos)
		val := &Node{Kind: Null, Line: ln.num, Column: pos + 1}
		if pos < len(s) && s[pos] == ':' {
			pos = skipWS(s, pos+1)
			if pos < len(s) && s[pos] != ',' && s[pos] != '}' {
				var err error
				if val, pos, err = p.flowNode(ln, pos, depth+1); err != nil {
					return nil, 0, err
				}
			}
		}
		n.Entries = append(n.Entries, Entry{Key: key, Line: ln.num, Column: kpos + 1, Value: val})
		if pos = skipWS(s, pos); atComment(s, pos) {
			return nil, 0, unclosedFlow(ln, pos)
		}
		switch s[pos] {
		case ',':
			pos++
		case '}':
			return n, pos + 1, nil
		default:
			return nil, 0, errAt(ln, pos, "expected ',' or '}' in a flow mapping, found %q", s[pos])
		}
	}
}

// flowQuoted reads a quoted scalar inside a flow collection, which must end
// on the same line.
func (p *parser) flowQuoted(ln *line, pos int) (string, int, error) {
	text, endNum, end, err := p.scanQuoted(ln, pos)
	if err != nil {
		return "", 0, err
	}
	if endNum != ln.num {
		return "", 0, unclosedFlow(ln, pos)
	}
	return text, end, nil
}

// scanFlowPlain returns the end of the plain scalar at s[start] in a flow
// collection: it stops at a flow indicator, at ": " and at a comment.
func scanFlowPlain(s string, start int) int {
	for j := start; j < len(s); j++ {
		switch c := s[j]; c {
		case ',', '[', ']', '{', '}':
			return j
		case ':':
			if j+1 == len(s) || isWS(s[j+1]) || strings.IndexByte(",[]{}", s[j+1]) >= 0 {
				return j
			}
		case '#':
			if j > start && isWS(s[j-1]) {
				return j
			}
		}
	}
	return len(s)
}

// unclosedFlow is the error for a flow collection cut by the end of a line.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func unclosedFlow(ln *line, pos int) error {
	return errAt(ln, pos, "flow collection not closed on this line: flow collections spanning lines are not supported")
}
