// SPDX-License-Identifier: Apache-2.0

package jsonpath

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file parses the JSONPath of a CRD's additionalPrinterColumns as
// the real server does: the column's path is wrapped in braces and read
// as a kubectl JSONPath template (fields, ['quoted keys'], indexes and
// slices, [*] and .*, .. recursive descent, [a,b] unions and
// [?(@.x=="y")] filters; range and end are not supported). A parsed
// template is immutable and safe to share; jsonpath_eval.go evaluates it.

// jpKind is the kind of a JSONPath node.
type jpKind uint8

const (
	jpText      jpKind = iota // a quoted string or text outside braces
	jpField                   // .name or ['name']
	jpWildcard                // .* (and [*], which is the slice [:])
	jpRecursive               // ..
	jpArray                   // [i], [i:j], [i:j:k]
	jpUnion                   // [a,b]
	jpFilter                  // [?(left op right)] or [?(left)]
	jpInt                     // a number literal without a fraction
	jpFloat                   // a number literal with one
	jpBool                    // true, false
	jpIdent                   // any other identifier: an error when evaluated
	jpList                    // an expression: nodes applied in turn
)

// jpParam is one bound of an array node.
type jpParam struct {
	value          int
	known, derived bool
}

// jpNode is one node of a parsed template.
type jpNode struct {
	kind   jpKind
	text   string     // jpText, jpField, jpIdent
	num    float64    // jpFloat
	n      int        // jpInt
	b      bool       // jpBool
	params [3]jpParam // jpArray
	nodes  []*jpNode  // jpList; jpUnion's alternatives (each a jpList)
	// left, right and op are a filter's operands and operator ("exists"
	// when there is no comparison).
	left, right *jpNode
	op          string
}

// Path is a parsed template: text and {expressions} in order.
type Path struct{ root []*jpNode }

var (
	jpDictKey  = regexp.MustCompile(`^'([^']*)'$`)
	jpSlice    = regexp.MustCompile(`^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$`)
	jpFilterOp = regexp.MustCompile(`^([^!<>=]+)([!<>=]+)(.+?)$`)
)

// Parse parses a template such as "{.spec.replicas}".
func Parse(text string) (*Path, error) {
	p := &jpParser{input: text}
	root := &jpNode{kind: jpList}
	if err := p.parseText(root); err != nil {
		return nil, err
	}
	return &Path{root: root.nodes}, nil
}

// parseJSONPathAction parses text as the inside of one {expression}.
func parseJSONPathAction(text string) (*jpNode, error) {
	jp, err := Parse("{" + text + "}")
	if err != nil {
		return nil, err
	}
	return jp.root[0], nil
}

type jpParser struct {
	input      string
	pos, start int
	width      int
	root       *jpNode
}

func (p *jpParser) next() rune {
	if p.pos >= len(p.input) {
		p.width = 0
		return -1
	}
	r, w := utf8.DecodeRuneInString(p.input[p.pos:])
	p.width = w
	p.pos += w
	return r
}

func (p *jpParser) backup() { p.pos -= p.width }

func (p *jpParser) peek() rune {
	r := p.next()
	p.backup()
	return r
}

func (p *jpParser) consume() string {
	s := p.input[p.start:p.pos]
	p.start = p.pos
	return s
}

func (p *jpParser) parseText(root *jpNode) error {
	p.root = root
	for {
		if strings.HasPrefix(p.input[p.pos:], "{") {
			if p.pos > p.start {
				root.nodes = append(root.nodes, &jpNode{kind: jpText, text: p.consume()})
			}
			p.pos++
			p.consume()
			list := &jpNode{kind: jpList}
			root.nodes = append(root.nodes, list)
			return p.parseAction(list)
		}
		if p.next() == -1 {
			break
		}
	}
	if p.pos > p.start {
		root.nodes = append(root.nodes, &jpNode{kind: jpText, text: p.consume()})
	}
	return nil
}

func (p *jpParser) parseAction(cur *jpNode) error {
	rest := p.input[p.pos:]
	switch {
	case strings.HasPrefix(rest, "}"):
		p.pos++
		p.consume()
		return p.parseText(p.root)
	case strings.HasPrefix(rest, "[?("):
		return p.parseFilter(cur)
	case strings.HasPrefix(rest, ".."):
		if n := len(cur.nodes); n > 0 && cur.nodes[n-1].kind == jpRecursive {
			return fmt.Errorf("invalid multiple recursive descent")
		}
		p.pos += 2
		p.consume()
		cur.nodes = append(cur.nodes, &jpNode{kind: jpRecursive})
		if r := p.peek(); jpAlphaNumeric(r) {
			return p.parseField(cur)
		}
		return p.parseAction(cur)
	}
	switch r := p.next(); {
	case r == -1 || r == '\r' || r == '\n':
		return fmt.Errorf("unclosed action")
	case r == ' ' || r == '@' || r == '$':
		p.consume()
	case r == '[':
		return p.parseArray(cur)
	case r == '"' || r == '\'':
		return p.parseQuote(cur, r)
	case r == '.':
		return p.parseField(cur)
	case r == '+' || r == '-' || unicode.IsDigit(r):
		p.backup()
		return p.parseNumber(cur)
	case jpAlphaNumeric(r):
		p.backup()
		for !jpTerminator(p.next()) {
		}
		p.backup()
		switch v := p.consume(); v {
		case "true", "false":
			cur.nodes = append(cur.nodes, &jpNode{kind: jpBool, b: v == "true"})
		default:
			cur.nodes = append(cur.nodes, &jpNode{kind: jpIdent, text: v})
		}
	default:
		return fmt.Errorf("unrecognized character in action: %#U", r)
	}
	return p.parseAction(cur)
}

func (p *jpParser) parseNumber(cur *jpNode) error {
	if r := p.peek(); r == '+' || r == '-' {
		p.next()
	}
	for {
		if r := p.next(); r != '.' && !unicode.IsDigit(r) {
			p.backup()
			break
		}
	}
	v := p.consume()
	if i, err := strconv.Atoi(v); err == nil {
		cur.nodes = append(cur.nodes, &jpNode{kind: jpInt, n: i})
	} else if f, err := strconv.ParseFloat(v, 64); err == nil {
		cur.nodes = append(cur.nodes, &jpNode{kind: jpFloat, num: f})
	} else {
		return fmt.Errorf("cannot parse number %s", v)
	}
	return p.parseAction(cur)
}

func (p *jpParser) parseArray(cur *jpNode) error {
	for done := false; !done; {
		switch p.next() {
		case -1, '\n':
			return fmt.Errorf("unterminated array")
		case ']':
			done = true
		}
	}
	text := p.consume()
	text = text[1 : len(text)-1]
	if text == "*" {
		text = ":"
	}
	if parts := strings.Split(text, ","); len(parts) > 1 {
		union := &jpNode{kind: jpUnion}
		for _, part := range parts {
			alt, err := parseJSONPathAction("[" + strings.Trim(part, " ") + "]")
			if err != nil {
				return err
			}
			union.nodes = append(union.nodes, alt)
		}
		cur.nodes = append(cur.nodes, union)
		return p.parseAction(cur)
	}
	if m := jpDictKey.FindStringSubmatch(text); m != nil {
		key, err := parseJSONPathAction("." + m[1])
		if err != nil {
			return err
		}
		cur.nodes = append(cur.nodes, key.nodes...)
		return p.parseAction(cur)
	}
	m := jpSlice.FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("invalid array index %s", text)
	}
	n := &jpNode{kind: jpArray}
	for i, v := range m[1:] {
		switch {
		case v == "" && i == 1:
			n.params[1] = jpParam{value: n.params[0].value + 1, known: true, derived: true}
		case v == "":
		case i > 0 && v == ":":
		default:
			if i > 0 {
				v = v[1:]
			}
			x, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("array index %s is not a number", v)
			}
			n.params[i] = jpParam{value: x, known: true}
		}
	}
	cur.nodes = append(cur.nodes, n)
	return p.parseAction(cur)
}

func (p *jpParser) parseFilter(cur *jpNode) error {
	p.pos += len("[?(")
	p.consume()
	begin, end := false, false
	var pair rune
	for done := false; !done; {
		switch r := p.next(); r {
		case -1, '\n':
			return fmt.Errorf("unterminated filter")
		case '"', '\'':
			if !begin {
				begin, pair = true, r
				continue
			}
			if p.input[p.pos-2] != '\\' && r == pair {
				end = true
			}
		case ')':
			done = begin == end
		}
	}
	if p.next() != ']' {
		return fmt.Errorf("unclosed array expect ]")
	}
	text := p.consume()
	text = text[:len(text)-2]
	f := &jpNode{kind: jpFilter, op: "exists", right: &jpNode{kind: jpList}}
	var err error
	if m := jpFilterOp.FindStringSubmatch(text); m != nil {
		if f.left, err = parseJSONPathAction(m[1]); err != nil {
			return err
		}
		if f.right, err = parseJSONPathAction(m[3]); err != nil {
			return err
		}
		f.op = m[2]
	} else if f.left, err = parseJSONPathAction(text); err != nil {
		return err
	}
	cur.nodes = append(cur.nodes, f)
	return p.parseAction(cur)
}

func (p *jpParser) parseQuote(cur *jpNode, end rune) error {
	for {
		switch p.next() {
		case -1, '\n':
			return fmt.Errorf("unterminated quoted string")
		case end:
			if p.input[p.pos-2] != '\\' {
				v := p.consume()
				s, err := jpUnquote(v)
				if err != nil {
					return fmt.Errorf("unquote string %s error %v", v, err)
				}
				cur.nodes = append(cur.nodes, &jpNode{kind: jpText, text: s})
				return p.parseAction(cur)
			}
		}
	}
}

func (p *jpParser) parseField(cur *jpNode) error {
	p.consume()
	for {
		r := p.next()
		if r == '\\' {
			p.next()
			continue
		}
		if jpTerminator(r) {
			p.backup()
			break
		}
	}
	v := p.consume()
	if v == "*" {
		cur.nodes = append(cur.nodes, &jpNode{kind: jpWildcard})
	} else {
		cur.nodes = append(cur.nodes, &jpNode{kind: jpField, text: strings.ReplaceAll(v, `\`, "")})
	}
	return p.parseAction(cur)
}

// jpUnquote unquotes a double- or single-quoted string.
func jpUnquote(s string) (string, error) {
	if len(s) < 2 || s[0] != s[len(s)-1] || (s[0] != '"' && s[0] != '\'') {
		return "", fmt.Errorf("invalid syntax")
	}
	q := s[0]
	s = s[1 : len(s)-1]
	var b strings.Builder
	for len(s) > 0 {
		c, multibyte, rest, err := strconv.UnquoteChar(s, q)
		if err != nil {
			return "", err
		}
		s = rest
		if c < utf8.RuneSelf || !multibyte {
			b.WriteByte(byte(c))
		} else {
			b.WriteRune(c)
		}
	}
	return b.String(), nil
}

func jpTerminator(r rune) bool {
	switch r {
	case -1, ' ', '\t', '\r', '\n', '.', ',', '[', ']', '$', '@', '{', '}':
		return true
	}
	return false
}

func jpAlphaNumeric(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
