// SPDX-License-Identifier: Apache-2.0

package shardexpr

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// This file splits a CEL expression into tokens as cel-go's ANTLR lexer
// does: the longest token wins, blanks and // comments are skipped, and a
// character no token can start or continue is a "token recognition error"
// quoting the text from the token's start to that character.

// lexCEL returns the tokens of src, ending with an "eof" token.
func lexCEL(src string) ([]celTok, error) {
	var toks []celTok
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case strings.IndexByte(" \t\r\n\f", c) >= 0:
			i++
			continue
		case strings.HasPrefix(src[i:], "//"):
			if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(src)
			}
			continue
		}
		kind, end, fail := lexOne(src, i)
		if fail >= 0 {
			return nil, fmt.Errorf("token recognition error at: '%s'", escapeDisplay(src[i:min(fail+1, len(src))]))
		}
		toks = append(toks, celTok{kind: kind, text: src[i:end], pos: i})
		i = end
	}
	return append(toks, celTok{kind: "eof", pos: len(src)}), nil
}

func escapeDisplay(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
}

// lexOne reads the token at src[i]: its kind and end, or the position
// where no token can go on (fail, -1 when none).
func lexOne(src string, i int) (kind string, end, fail int) {
	c := src[i]
	switch {
	case isLetter(c) || c == '_':
		if end, ok := prefixedString(src, i); ok {
			if c == 'b' || c == 'B' {
				return "bytes", end, -1
			}
			return "string", end, -1
		}
		end = i + 1
		for end < len(src) && (isLetter(src[end]) || isDigit(src[end]) || src[end] == '_') {
			end++
		}
		switch w := src[i:end]; w {
		case "true", "false", "null", "in":
			return w, end, -1
		}
		return "ident", end, -1
	case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
		kind, end = lexNumber(src, i)
		return kind, end, -1
	case c == '\'' || c == '"':
		end, fail = lexString(src, i, false)
		return "string", end, fail
	case c == '`':
		end = i + 1
		for end < len(src) && (isLetter(src[end]) || isDigit(src[end]) || strings.IndexByte("_.-/ ", src[end]) >= 0) {
			end++
		}
		if end == i+1 || end == len(src) || src[end] != '`' {
			return "", 0, end
		}
		return "esc", end + 1, -1
	}
	for _, op := range []string{"||", "&&", "==", "!=", "<=", ">="} {
		if strings.HasPrefix(src[i:], op) {
			return op, i + 2, -1
		}
	}
	switch {
	case strings.IndexByte("<>!+-*/%?:.,()[]{}", c) >= 0:
		return string(c), i + 1, -1
	case c == '|' || c == '&' || c == '=': // the first of a two-character operator
		return "", 0, i + 1
	}
	_, size := utf8.DecodeRuneInString(src[i:])
	return "", 0, i + size - 1
}

// prefixedString reads r'…', b'…', br'…' and the like at src[i]; false
// when the letters do not start one, and they are an identifier instead.
func prefixedString(src string, i int) (int, bool) {
	j, raw := i, false
	if src[j] == 'b' || src[j] == 'B' {
		j++
	}
	if j < len(src) && (src[j] == 'r' || src[j] == 'R') {
		j, raw = j+1, true
	}
	if j == i || j >= len(src) || src[j] != '\'' && src[j] != '"' {
		return 0, false
	}
	end, fail := lexString(src, j, raw)
	return end, fail < 0
}

// lexString reads a quoted string at src[i] (one or three quotes).
func lexString(src string, i int, raw bool) (end, fail int) {
	closing := src[i : i+1]
	if q3 := strings.Repeat(closing, 3); strings.HasPrefix(src[i:], q3) {
		closing = q3
	}
	for j := i + len(closing); j < len(src); {
		switch {
		case strings.HasPrefix(src[j:], closing):
			return j + len(closing), -1
		case len(closing) == 1 && (src[j] == '\n' || src[j] == '\r'):
			return 0, j
		case src[j] == '\\' && !raw:
			n, bad := escapeLen(src, j)
			if bad >= 0 {
				return 0, bad
			}
			j += n
			continue
		}
		j++
	}
	if len(closing) == 3 { // unterminated: the longest token is the empty string ''
		return i + 2, -1
	}
	return 0, len(src)
}

// escapeLen checks the escape at src[j] ('\'): its length, or where it
// stops being one.
func escapeLen(src string, j int) (n, fail int) {
	if j+1 >= len(src) {
		return 0, len(src)
	}
	digits := func(k int, ok func(byte) bool) (int, int) {
		for d := 0; d < k; d++ {
			p := j + 2 + d
			if p >= len(src) || !ok(src[p]) {
				return 0, min(p, len(src))
			}
		}
		return 2 + k, -1
	}
	switch c := src[j+1]; {
	case strings.IndexByte("abfnrtv\"'\\?`", c) >= 0:
		return 2, -1
	case c == 'x' || c == 'X':
		return digits(2, isHex)
	case c == 'u':
		return digits(4, isHex)
	case c == 'U':
		return digits(8, isHex)
	case '0' <= c && c <= '3':
		return digits(2, func(b byte) bool { return '0' <= b && b <= '7' })
	}
	return 0, j + 1
}

// lexNumber reads an int, uint or float at src[i].
func lexNumber(src string, i int) (kind string, end int) {
	run := func(j int, ok func(byte) bool) int {
		for j < len(src) && ok(src[j]) {
			j++
		}
		return j
	}
	if strings.HasPrefix(src[i:], "0x") && i+2 < len(src) && isHex(src[i+2]) {
		end = run(i+2, isHex)
		if end < len(src) && (src[end] == 'u' || src[end] == 'U') {
			return "uint", end + 1
		}
		return "int", end
	}
	end = run(i, isDigit)
	kind = "int"
	if end < len(src) && src[end] == '.' && end+1 < len(src) && isDigit(src[end+1]) {
		end, kind = run(end+1, isDigit), "float"
	}
	if end < len(src) && (src[end] == 'e' || src[end] == 'E') {
		j := end + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			return "float", run(j, isDigit)
		}
	}
	if kind == "int" && end < len(src) && (src[end] == 'u' || src[end] == 'U') {
		return "uint", end + 1
	}
	return kind, end
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
