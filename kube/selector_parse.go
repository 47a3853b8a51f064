// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"errors"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// ParseSelector parses a label selector in the syntax of kubectl -l and of
// the server's ?labelSelector=:
//
//	selector    = "" | requirement { "," requirement }
//	requirement = "!" key | key [ ("=" | "==" | "!=" | ">" | "<") [value]
//	            | ("in" | "notin") "(" [value] { "," [value] } ")" ]
//
// "a" requires key a to exist, "!a" to be absent; "a=" and "a in ()" mean
// the empty value. Whitespace (space, tab, CR, LF) may surround any token.
// "in" and "notin" are operators only after a key, so a key or value may be
// named "in".
//
// Validation is the server's: a key is an optional prefix, a lowercase
// DNS-1123 subdomain of at most 253 characters, and "/", then a name of 1
// to 63 alphanumerics, '-', '_' or '.' that starts and ends with an
// alphanumeric; a value is empty or is like a name. gt and lt take a
// base-10 integer. An error quotes the input and gives the byte position
// of the fault.
//
// The result is in canonical order (see [Selector.String]). The cost is
// O(len(s) log len(s)).
func ParseSelector(s string) (Selector, error) {
	p := selectorParser{in: s}
	reqs, err := p.parse()
	if err != nil {
		return Selector{}, errs.Errorf("parse label selector %q: %w", s, err)
	}
	return sortedSelector(reqs), nil
}

// MustParseSelector is [ParseSelector] for constants and tests: it panics
// if s does not parse.
func MustParseSelector(s string) Selector {
	sel, err := ParseSelector(s)
	if err != nil {
		panic(err)
	}
	return sel
}

// selectorParser is a recursive-descent parser over tokens it lexes on
// demand; it looks one token ahead.
type selectorParser struct {
	in  string
	pos int // offset of the next unread byte of in
}

// token kinds; an identifier carries its text, all others are punctuation.
const (
	selTokEOF = iota
	selTokIdent
	selTokComma
	selTokOpen
	selTokClose
	selTokNot
	selTokEq
	selTokEqEq
	selTokNotEq
	selTokGt
	selTokLt
)

type selToken struct {
	kind int
	text string // the token as written
	pos  int    // byte offset in the input
}

func isSelectorSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isSelectorSymbol(c byte) bool {
	switch c {
	case '=', '!', '(', ')', ',', '>', '<':
		return true
	}
	return false
}

// next lexes one token: a run of symbol characters gives its longest known
// prefix of at most two bytes ("!=", "=="), anything else up to a symbol or
// a space is an identifier, as the server's lexer does.
func (p *selectorParser) next() selToken {
	for p.pos < len(p.in) && isSelectorSpace(p.in[p.pos]) {
		p.pos++
	}
	start := p.pos
	if start == len(p.in) {
		return selToken{kind: selTokEOF, pos: start}
	}
	two := ""
	if start+1 < len(p.in) {
		two = p.in[start : start+2]
	}
	kind := selTokIdent
	switch {
	case two == "!=":
		kind = selTokNotEq
	case two == "==":
		kind = selTokEqEq
	default:
		switch p.in[start] {
		case ',':
			kind = selTokComma
		case '(':
			kind = selTokOpen
		case ')':
			kind = selTokClose
		case '!':
			kind = selTokNot
		case '=':
			kind = selTokEq
		case '>':
			kind = selTokGt
		case '<':
			kind = selTokLt
		}
	}
	switch kind {
	case selTokNotEq, selTokEqEq:
		p.pos += 2
	case selTokIdent:
		for p.pos < len(p.in) && !isSelectorSpace(p.in[p.pos]) && !isSelectorSymbol(p.in[p.pos]) {
			p.pos++
		}
	default:
		p.pos++
	}
	return selToken{kind: kind, text: p.in[start:p.pos], pos: start}
}

// peek returns the next token without consuming it.
func (p *selectorParser) peek() selToken {
	save := p.pos
	t := p.next()
	p.pos = save
	return t
}

// selUnexpected describes t where what was expected.
func selUnexpected(t selToken, what string) error {
	if t.kind == selTokEOF {
		return errs.Errorf("expected %s at position %d", what, t.pos)
	}
	return errs.Errorf("expected %s at position %d, found %q", what, t.pos, t.text)
}

func (p *selectorParser) parse() ([]Requirement, error) {
	var reqs []Requirement
	if p.peek().kind == selTokEOF {
		return nil, nil
	}
	for {
		r, err := p.requirement()
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
		switch t := p.next(); t.kind {
		case selTokEOF:
			return reqs, nil
		case selTokComma:
		default:
			return nil, selUnexpected(t, "',' or end of input")
		}
	}
}

// requirement parses one requirement and validates it.
func (p *selectorParser) requirement() (Requirement, error) {
	t := p.next()
	r := Requirement{Operator: OpExists}
	if t.kind == selTokNot {
		r.Operator = OpDoesNotExist
		t = p.next()
	}
	if t.kind != selTokIdent {
		return r, selUnexpected(t, "a label key")
	}
	r.Key = t.text
	if err := validateLabelKey(r.Key); err != nil {
		return r, errs.Errorf("invalid key %q at position %d: %w", r.Key, t.pos, err)
	}
	if r.Operator == OpDoesNotExist {
		return r, nil
	}
	op := p.peek()
	if op.kind == selTokEOF || op.kind == selTokComma {
		return r, nil
	}
	p.next()
	var err error
	switch {
	case op.kind == selTokEq || op.kind == selTokEqEq:
		r.Operator = OpEquals
	case op.kind == selTokNotEq:
		r.Operator = OpNotEquals
	case op.kind == selTokGt:
		r.Operator = OpGreaterThan
	case op.kind == selTokLt:
		r.Operator = OpLessThan
	case op.kind == selTokIdent && (op.text == OpIn || op.text == OpNotIn):
		r.Operator = op.text
		if r.Values, err = p.valueSet(r.Key); err != nil {
			return r, err
		}
		return normalRequirement(r), nil
	default:
		return r, selUnexpected(op, "an operator (=, ==, !=, in, notin, >, <), ',' or end of input")
	}
	v, err := p.value(r.Key)
	if err != nil {
		return r, err
	}
	if r.Operator == OpGreaterThan || r.Operator == OpLessThan {
		if _, err := strconv.ParseInt(v.text, 10, 64); err != nil {
			return r, errs.Errorf("invalid value %q at position %d: operator %q needs an integer", v.text, v.pos, op.text)
		}
	}
	r.Values = []string{v.text}
	return r, nil
}

// value parses the single, possibly empty, value after =, ==, !=, > or <.
func (p *selectorParser) value(key string) (selToken, error) {
	t := p.peek()
	if t.kind == selTokEOF || t.kind == selTokComma {
		return selToken{kind: selTokIdent, pos: t.pos}, nil
	}
	p.next()
	if t.kind != selTokIdent {
		return t, selUnexpected(t, "a value")
	}
	if err := validateLabelValue(t.text); err != nil {
		return t, errs.Errorf("invalid value %q for key %q at position %d: %w", t.text, key, t.pos, err)
	}
	return t, nil
}

// valueSet parses "(" [value] { "," [value] } ")": "()" is the set of the
// empty value.
func (p *selectorParser) valueSet(key string) ([]string, error) {
	if t := p.next(); t.kind != selTokOpen {
		return nil, selUnexpected(t, "'('")
	}
	var vals []string
	for {
		t := p.next()
		v := ""
		if t.kind == selTokIdent {
			if err := validateLabelValue(t.text); err != nil {
				return nil, errs.Errorf("invalid value %q for key %q at position %d: %w", t.text, key, t.pos, err)
			}
			v = t.text
			t = p.next()
		}
		vals = append(vals, v)
		switch t.kind {
		case selTokClose:
			return vals, nil
		case selTokComma:
		case selTokEOF:
			return nil, selUnexpected(t, "')'")
		default:
			return nil, selUnexpected(t, "',' or ')'")
		}
	}
}

const (
	maxLabelNameLen   = 63
	maxLabelPrefixLen = 253
)

// validateLabelKey checks k as the server checks a label key: an optional
// DNS-1123 subdomain prefix and "/", then a name.
func validateLabelKey(k string) error {
	// A second '/' stays in the name, which isLabelName rejects.
	prefix, name, hasPrefix := strings.Cut(k, "/")
	if !hasPrefix {
		name = k
	}
	if hasPrefix {
		switch {
		case prefix == "":
			return errors.New("prefix before '/' is empty")
		case len(prefix) > maxLabelPrefixLen:
			return errs.Errorf("prefix is longer than %d characters", maxLabelPrefixLen)
		case !isLabelPrefix(prefix):
			return errs.Errorf("prefix %q must be a lowercase DNS-1123 subdomain (e.g. example.com)", prefix)
		}
	}
	switch {
	case name == "":
		return errors.New("name is empty")
	case len(name) > maxLabelNameLen:
		return errs.Errorf("name is longer than %d characters", maxLabelNameLen)
	case !isLabelName(name):
		return errors.New("name must consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric")
	}
	return nil
}

// validateLabelValue checks v as the server checks a label value.
func validateLabelValue(v string) error {
	switch {
	case v == "":
		return nil
	case len(v) > maxLabelNameLen:
		return errs.Errorf("value is longer than %d characters", maxLabelNameLen)
	case !isLabelName(v):
		return errors.New("value must be empty or consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric")
	}
	return nil
}

func isLabelAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isLabelName matches ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9].
func isLabelName(s string) bool {
	if s == "" || !isLabelAlnum(s[0]) || !isLabelAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isLabelAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isLabelPrefix reports whether s is a lowercase DNS-1123 subdomain:
// labels [a-z0-9]([-a-z0-9]*[a-z0-9])? joined by '.'.
func isLabelPrefix(s string) bool {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			c := s[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
			continue
		}
		label := s[start:i]
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		start = i + 1
	}
	return true
}
