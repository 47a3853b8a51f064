// SPDX-License-Identifier: Apache-2.0

package shardexpr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file parses the CEL grammar (cel-spec's, as cel-go's ANTLR parser
// reads it) into a syntax tree of the shape cel-go builds, for shard
// selectors: kind numbers, function names of operators and literal types
// are cel-go's, since the real server prints them in its errors. Macros
// are off, as the real server turns them off. A syntax error reports what
// cel-go's parser reports for the common mistakes (a missing or extra
// token, a character CEL does not know); ANTLR's recovery has more cases
// than this, see DIFFERENCES.md. Only the first error counts.

// celKind numbers the node kinds as cel-go's ast.ExprKind does.
type celKind int

const (
	celCall    celKind = 1
	celIdent   celKind = 3
	celList    celKind = 4
	celLiteral celKind = 5
	celMap     celKind = 6
	celSelect  celKind = 7
)

// celExpr is a node. A call's args exclude the receiver of a member call;
// a select's operand is args[0].
type celExpr struct {
	kind celKind
	fn   string // call: function or operator name (_||_, _[_], ...)
	// name is an identifier, a selected field, or a string literal's value.
	name string
	// literalType is the Go type cel-go's literal value has: "string",
	// "int64", "uint64", "float64", "bool", "[]uint8", "structpb.NullValue".
	literalType string
	args        []*celExpr
}

// celTok is a lexical token; text is as written.
type celTok struct {
	kind string // "ident", "int", "uint", "float", "string", "bytes", "esc", "eof", or the operator/keyword itself
	text string
	pos  int
}

const primaryFirst = "'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER"

// startsPrimary reports whether a token can begin an expression.
func startsPrimary(k string) bool {
	switch k {
	case "[", "{", "(", ".", "-", "!", "true", "false", "null", "float", "int", "uint", "string", "bytes", "ident":
		return true
	}
	return false
}

var celReserved = map[string]bool{
	"as": true, "break": true, "const": true, "continue": true, "else": true, "for": true, "function": true,
	"if": true, "import": true, "let": true, "loop": true, "package": true, "namespace": true, "return": true,
	"var": true, "void": true, "while": true,
}

// celParser is a recursive descent over the token list.
type celParser struct {
	src  string
	toks []celTok
	i    int
	// later is the first error cel-go finds after parsing, when it walks
	// the parse tree (a reserved word as a name, a `quoted` field): it
	// counts only if the syntax is right.
	later string
}

// parseCEL returns the tree of src or the first error.
func parseCEL(src string) (*celExpr, error) {
	toks, err := lexCEL(src)
	if err != nil {
		return nil, fmt.Errorf("Syntax error: %w", err)
	}
	p := &celParser{src: src, toks: toks}
	e, err := p.expr()
	if err == nil && p.peek().kind != "eof" {
		err = p.unexpected("<EOF>", "eof")
	}
	if err != nil {
		return nil, fmt.Errorf("Syntax error: %w", err)
	}
	if p.later != "" {
		return nil, errors.New(p.later)
	}
	return e, nil
}

func (p *celParser) peek() celTok { return p.toks[p.i] }
func (p *celParser) peekAt(n int) celTok {
	return p.toks[min(p.i+n, len(p.toks)-1)]
}
func (p *celParser) next() celTok {
	t := p.toks[p.i]
	if t.kind != "eof" {
		p.i++
	}
	return t
}

// display quotes a token as ANTLR's messages do.
func display(t celTok) string {
	if t.kind == "eof" {
		return "'<EOF>'"
	}
	return "'" + escapeDisplay(t.text) + "'"
}

// unexpected is the error at the current token when a token of kind want
// should come (ANTLR's single-token recovery): extra input if the token
// after it is one, a missing token at the end of the input, a mismatch
// otherwise.
func (p *celParser) unexpected(wantText, want string) error {
	t := p.peek()
	switch {
	case t.kind != "eof" && p.peekAt(1).kind == want:
		return fmt.Errorf("extraneous input %s expecting %s", display(t), wantText)
	case t.kind == "eof" && want != "eof":
		return fmt.Errorf("missing %s at '<EOF>'", wantText)
	}
	return fmt.Errorf("mismatched input %s expecting %s", display(t), wantText)
}

// noExpression is the error at the current token when an expression should
// start: extra input if one starts after it, a mismatch otherwise. set is
// the expected set; after a call's '(' it holds ')' too.
func (p *celParser) noExpression(afterParen bool) error {
	set := primaryFirst
	if afterParen {
		set = strings.Replace(set, "'(', ", "'(', ')', ", 1)
	}
	if t := p.peek(); t.kind != "eof" && startsPrimary(p.peekAt(1).kind) {
		return fmt.Errorf("extraneous input %s expecting {%s}", display(t), set)
	}
	return fmt.Errorf("mismatched input %s expecting {%s}", display(p.peek()), set)
}

// visitError records an error of cel-go's tree walk.
func (p *celParser) visitError(msg string) {
	if p.later == "" {
		p.later = msg
	}
}

func (p *celParser) expect(kind string) error {
	if p.peek().kind != kind {
		return p.unexpected("'"+kind+"'", kind)
	}
	p.next()
	return nil
}

func newCall(fn string, args ...*celExpr) *celExpr {
	return &celExpr{kind: celCall, fn: fn, args: args}
}

func (p *celParser) expr() (*celExpr, error) {
	e, err := p.binary(0)
	if err != nil || p.peek().kind != "?" {
		return e, err
	}
	p.next()
	a, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	b, err := p.expr()
	if err != nil {
		return nil, err
	}
	return newCall("_?_:_", e, a, b), nil
}

// binaryLevels are the operators by precedence, loosest first, with the
// function names cel-go gives them; each level is left-associative.
var binaryLevels = []map[string]string{
	{"||": "_||_"},
	{"&&": "_&&_"},
	{"<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "==": "_==_", "!=": "_!=_", "in": "@in"},
	{"+": "_+_", "-": "_-_"},
	{"*": "_*_", "/": "_/_", "%": "_%_"},
}

func (p *celParser) binary(level int) (*celExpr, error) {
	if level == len(binaryLevels) {
		return p.unary()
	}
	e, err := p.binary(level + 1)
	for err == nil {
		fn, ok := binaryLevels[level][p.peek().kind]
		if !ok {
			break
		}
		p.next()
		var r *celExpr
		if r, err = p.binary(level + 1); err == nil {
			e = newCall(fn, e, r)
		}
	}
	return e, err
}

func (p *celParser) unary() (*celExpr, error) {
	switch k := p.peek().kind; {
	case k == "-" && (p.peekAt(1).kind == "int" || p.peekAt(1).kind == "float"):
		p.next()
		lit, err := p.member()
		if err == nil {
			lit.name = "-" + lit.name
		}
		return lit, err
	case k == "!" || k == "-":
		p.next()
		e, err := p.unary()
		if err != nil {
			return nil, err
		}
		return newCall(k+"_", e), nil
	}
	return p.member()
}

func (p *celParser) member() (*celExpr, error) {
	e, err := p.primary()
	for err == nil {
		switch p.peek().kind {
		case ".":
			dot := p.next()
			id := p.peek()
			if id.kind != "ident" && id.kind != "esc" {
				if id.kind == "true" || id.kind == "false" || id.kind == "null" {
					return nil, fmt.Errorf("mismatched input '%s' expecting IDENTIFIER", id.text)
				}
				end := len(p.src)
				if id.kind != "eof" {
					end = id.pos + len(id.text)
				}
				return nil, fmt.Errorf("no viable alternative at input '%s'", p.src[dot.pos:end])
			}
			p.next()
			if p.peek().kind == "(" && id.kind == "ident" {
				p.next()
				args, aerr := p.args()
				if aerr != nil {
					return nil, aerr
				}
				e = newCall(id.text, args...) // the receiver is not an argument, as in cel-go
				continue
			}
			if id.kind == "esc" { // cel-go's option for `quoted` fields is off
				p.visitError("unsupported syntax: '`'")
			}
			e = &celExpr{kind: celSelect, name: strings.Trim(id.text, "`"), args: []*celExpr{e}}
		case "[":
			p.next()
			var idx *celExpr
			if idx, err = p.expr(); err == nil {
				err = p.expect("]")
			}
			e = newCall("_[_]", e, idx)
		default:
			return e, nil
		}
	}
	return nil, err
}

// args reads a call's argument list after its '('.
func (p *celParser) args() ([]*celExpr, error) {
	if p.peek().kind == ")" {
		p.next()
		return nil, nil
	}
	var out []*celExpr
	for {
		if !startsPrimary(p.peek().kind) {
			return nil, p.noExpression(len(out) == 0)
		}
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, a)
		if p.peek().kind != "," {
			return out, p.expect(")")
		}
		p.next()
	}
}

func (p *celParser) primary() (*celExpr, error) {
	t := p.peek()
	if !startsPrimary(t.kind) {
		return nil, p.noExpression(false)
	}
	p.next()
	switch t.kind {
	case ".", "ident":
		name := t.text
		if t.kind == "." {
			id := p.peek()
			if id.kind != "ident" {
				return nil, fmt.Errorf("no viable alternative at input '.%s'", id.text)
			}
			p.next()
			name = "." + id.text
		}
		if id := strings.TrimPrefix(name, "."); celReserved[id] {
			p.visitError("reserved identifier: " + id)
		}
		if p.peek().kind != "(" {
			return &celExpr{kind: celIdent, name: name}, nil
		}
		p.next()
		args, err := p.args()
		if err != nil {
			return nil, err
		}
		return newCall(name, args...), nil
	case "(":
		e, err := p.expr()
		if err == nil {
			err = p.expect(")")
		}
		return e, err
	case "[", "{":
		return p.composite(t.kind)
	}
	return literal(t)
}

// composite reads a list [a, b] or a map {k: v} after its opening bracket.
func (p *celParser) composite(open string) (*celExpr, error) {
	closer, kind := "]", celList
	if open == "{" {
		closer, kind = "}", celMap
	}
	e := &celExpr{kind: kind}
	for p.peek().kind != closer {
		k, err := p.expr()
		if err != nil {
			return nil, err
		}
		e.args = append(e.args, k)
		if kind == celMap {
			if err := p.expect(":"); err != nil {
				return nil, err
			}
			if _, err := p.expr(); err != nil {
				return nil, err
			}
		}
		if p.peek().kind != "," {
			break
		}
		p.next()
	}
	return e, p.expect(closer)
}

// literal turns a literal token into a node, its value decoded as far as
// the shard walk needs (a string's value; the others' types).
func literal(t celTok) (*celExpr, error) {
	e := &celExpr{kind: celLiteral, name: t.text, literalType: celLiteralTypes[t.kind]}
	if t.kind == "string" {
		v, err := unquoteCEL(t.text)
		if err != nil {
			return nil, err
		}
		e.name = v
	}
	return e, nil
}

// celLiteralTypes are the Go types of cel-go's literal values, by token.
var celLiteralTypes = map[string]string{"int": "int64", "uint": "uint64", "float": "float64", "true": "bool",
	"false": "bool", "null": "structpb.NullValue", "bytes": "[]uint8", "string": "string"}

// unquoteCEL decodes a string literal: raw or not, one or three quotes.
func unquoteCEL(s string) (string, error) {
	raw := s[0] == 'r' || s[0] == 'R'
	if raw {
		s = s[1:]
	}
	q := 1
	if len(s) >= 6 && (strings.HasPrefix(s, `"""`) || strings.HasPrefix(s, `'''`)) {
		q = 3
	}
	body := s[q : len(s)-q]
	if raw {
		return body, nil
	}
	var b strings.Builder
	for i := 0; i < len(body); {
		if body[i] != '\\' {
			b.WriteByte(body[i])
			i++
			continue
		}
		n, r, err := unescape(body[i:])
		if err != nil {
			return "", err
		}
		b.WriteRune(r) // in a string, \x41 and \101 are code points too
		i += n
	}
	return b.String(), nil
}

// unescape decodes the escape sequence at the start of s (the lexer has
// checked its form): its length and value.
func unescape(s string) (int, rune, error) {
	simple := map[byte]rune{'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v',
		'"': '"', '\'': '\'', '\\': '\\', '?': '?', '`': '`'}
	if r, ok := simple[s[1]]; ok {
		return 2, r, nil
	}
	start, n, base := 2, 0, 16
	switch s[1] {
	case 'x', 'X':
		n = 2
	case 'u':
		n = 4
	case 'U':
		n = 8
	default: // \ooo
		start, n, base = 1, 3, 8
	}
	v, err := strconv.ParseUint(s[start:start+n], base, 32)
	if err != nil || v > utf8.MaxRune || 0xD800 <= v && v < 0xE000 {
		return 0, 0, fmt.Errorf("invalid escape %q", s[:start+n])
	}
	return start + n, rune(v), nil
}
