// SPDX-License-Identifier: Apache-2.0

package openapipb

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// This file writes a JSON value as the YAML text gnostic stores in an
// Any (defaults, examples, enum values, x- extensions): what gnostic-models
// writes with go-yaml v3 after clearing every node's style. Block style
// throughout, mappings and sequences under a key indented to the next
// multiple of 4 columns, collections in a sequence item after its "- ";
// numbers, bools and null as their JSON literals; a string plain when go-yaml
// would read it back as that string, else single-quoted, else
// double-quoted; a string holding a line break as a literal block when
// go-yaml can write one.

const yamlIndent = 4

// yamlText returns the YAML document of n, ending in a newline.
func yamlText(n *node) string {
	var sb strings.Builder
	writeYAMLValue(&sb, n, -1, atStart)
	return sb.String()
}

// yamlPlace is where the cursor stands when a value is written.
type yamlPlace uint8

const (
	atStart       yamlPlace = iota // the document's start
	afterKey                       // after "key:"
	afterDash                      // after "- "
	afterExplicit                  // after the ":" of an explicit "? key"
)

// writeYAMLValue writes n at place; parent is the column of the
// enclosing collection (-1 at the start).
func writeYAMLValue(sb *strings.Builder, n *node, parent int, place yamlPlace) {
	isCollection := (n.kind == objectNode || n.kind == arrayNode) && len(n.elems) > 0
	indent := 0
	switch {
	case place == afterDash:
		indent = parent + 2
	case place != atStart:
		indent = yamlIndent * ((parent + yamlIndent) / yamlIndent)
	case !isCollection:
		indent = yamlIndent // a block scalar at the start
	}
	if !isCollection {
		if place == afterKey || place == afterExplicit {
			sb.WriteByte(' ')
		}
		if n.kind == stringNode && yamlLiteralAllowed(n.text) {
			writeYAMLLiteral(sb, n.text, indent)
			return
		}
		sb.WriteString(yamlScalar(n))
		sb.WriteByte('\n')
		return
	}
	switch place {
	case afterKey:
		sb.WriteByte('\n')
		sb.WriteString(strings.Repeat(" ", indent))
	case afterExplicit: // the first entry on the ":" line, at indent
		sb.WriteString(strings.Repeat(" ", indent-parent-1))
	}
	for i, elem := range n.elems {
		if i > 0 {
			sb.WriteString(strings.Repeat(" ", indent))
		}
		if n.kind == arrayNode {
			sb.WriteString("- ")
			writeYAMLValue(sb, elem, indent, afterDash)
			continue
		}
		writeYAMLEntry(sb, n.keys[i], elem, indent)
	}
}

// writeYAMLEntry writes one entry of a mapping at column indent. A key
// longer than 128 bytes or holding a line break is not a simple key:
// go-yaml writes it explicitly, "? key", then ": value" on a line of its
// own.
func writeYAMLEntry(sb *strings.Builder, key string, value *node, indent int) {
	if len(key) <= 128 && !strings.Contains(key, "\n") {
		sb.WriteString(yamlString(key))
		sb.WriteByte(':')
		writeYAMLValue(sb, value, indent, afterKey)
		return
	}
	sb.WriteString("? ")
	if yamlLiteralAllowed(key) {
		writeYAMLLiteral(sb, key, yamlIndent*((indent+yamlIndent)/yamlIndent))
	} else {
		sb.WriteString(yamlString(key))
		sb.WriteByte('\n')
	}
	sb.WriteString(strings.Repeat(" ", indent))
	sb.WriteByte(':')
	writeYAMLValue(sb, value, indent, afterExplicit)
}

// yamlScalar returns a scalar, or an empty collection in flow style.
func yamlScalar(n *node) string {
	switch n.kind {
	case stringNode:
		return yamlString(n.text)
	case objectNode:
		return "{}"
	case arrayNode:
		return "[]"
	}
	return n.text
}

// yamlLiteralAllowed reports whether go-yaml writes the string s as a
// literal block: it holds a line break, every rune is printable, and no
// space ends a line or the string.
func yamlLiteralAllowed(s string) bool {
	return strings.Contains(s, "\n") && yamlPrintable(s) && !strings.Contains(s, " \n") && !strings.HasSuffix(s, " ")
}

// writeYAMLLiteral writes s as a literal block ("|") whose lines stand at
// indent: an indentation hint when s starts with a space or a break, and
// the chomping that keeps s's trailing breaks ("-" none, "" one, "+" more).
func writeYAMLLiteral(sb *strings.Builder, s string, indent int) {
	sb.WriteByte('|')
	if s[0] == ' ' || s[0] == '\n' {
		sb.WriteString(strconv.Itoa(yamlIndent))
	}
	switch {
	case !strings.HasSuffix(s, "\n"):
		sb.WriteByte('-')
	case s == "\n" || strings.HasSuffix(s, "\n\n"):
		sb.WriteByte('+')
	}
	sb.WriteByte('\n')
	atLineStart := true
	for _, r := range s {
		if r == '\n' {
			sb.WriteByte('\n')
			atLineStart = true
			continue
		}
		if atLineStart {
			sb.WriteString(strings.Repeat(" ", indent))
			atLineStart = false
		}
		sb.WriteRune(r)
	}
	if !atLineStart {
		sb.WriteByte('\n')
	}
}

// yamlString returns s as go-yaml v3 writes a string in block context.
func yamlString(s string) string {
	switch {
	case !yamlPrintable(s) || strings.Contains(s, "\n") || yamlResolvesOther(s):
		return yamlDoubleQuoted(s)
	case !yamlPlainAllowed(s):
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return s
}

// yamlResolvesOther reports whether s, written plain, would read back as
// something other than a string (null, bool, number, timestamp).
func yamlResolvesOther(s string) bool {
	switch s {
	case "", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
		".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return true
	}
	if !strings.ContainsAny(s[:1], "+-.0123456789") {
		return false
	}
	for _, layout := range []string{"2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999", "2006-1-2"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return true
	}
	if yamlFloat.MatchString(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return true
		}
	}
	for _, p := range []string{"0b", "-0b", "0o", "-0o"} {
		if rest, ok := strings.CutPrefix(plain, p); ok && rest != "" {
			if _, err := strconv.ParseUint(rest, map[byte]int{'b': 2, 'o': 8}[p[len(p)-1]], 64); err == nil {
				return true
			}
		}
	}
	return false
}

var (
	yamlFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
)

// yamlPrintable reports whether every rune of s is one go-yaml writes as
// is (not NEL, line and paragraph separators, or runes past U+FFFF).
func yamlPrintable(s string) bool {
	for _, r := range s {
		if !yamlPrintableRune(r) {
			return false
		}
	}
	return true
}

func yamlPrintableRune(r rune) bool {
	return r == '\n' || r >= 0x20 && r <= 0x7E || r >= 0xA0 && r <= 0xD7FF && r != 0x2028 && r != 0x2029 ||
		r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF
}

// yamlPlainAllowed reports whether s may be written plain in block
// context (s is printable, one line, and not one of yamlResolvesOther).
func yamlPlainAllowed(s string) bool {
	if s[0] == ' ' || s[len(s)-1] == ' ' || strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		return false
	}
	followedBySpace := func(i int) bool { return i+1 == len(s) || s[i+1] == ' ' }
	if strings.IndexByte("#,[]{}&*!|>'\"%@`", s[0]) >= 0 {
		return false
	}
	if (s[0] == '-' || s[0] == '?' || s[0] == ':') && followedBySpace(0) {
		return false
	}
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == ':' && followedBySpace(i):
			return false
		case s[i] == '#' && s[i-1] == ' ':
			return false
		}
	}
	return true
}

// yamlDoubleQuoted returns s double-quoted, escaping what go-yaml
// escapes: the quote, the backslash, line breaks and runes that are not
// printable.
func yamlDoubleQuoted(s string) string {
	short := map[rune]string{0: `\0`, '\a': `\a`, '\b': `\b`, '\t': `\t`, '\n': `\n`, '\v': `\v`, '\f': `\f`, '\r': `\r`,
		0x1B: `\e`, '"': `\"`, '\\': `\\`, 0x85: `\N`, 0x2028: `\L`, 0x2029: `\P`}
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		esc, ok := short[r]
		switch {
		case ok:
			sb.WriteString(esc)
		case yamlPrintableRune(r):
			sb.WriteRune(r)
		case r <= 0xFF:
			fmt.Fprintf(&sb, `\x%02X`, r)
		case r <= 0xFFFF:
			fmt.Fprintf(&sb, `\u%04X`, r)
		default:
			fmt.Fprintf(&sb, `\U%08X`, r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
