// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// This file describes JSON in error messages without quoting it: what the
// server sends may be a Secret, whose data is a credential. An error says
// what kind of value was met, its kind and name when it is an object, its
// size, and the path of the field at fault; never a value.

// answerShape describes a whole answer as shapeOf does, but shows markup
// (an HTML error page of a proxy in the way: it starts with '<') by its
// text, which no object of the API server is written in. Other text may be
// an object in another encoding (YAML, protobuf) and is not shown; nor is
// a line of a watch stream, which may be a piece of anything (shapeOf).
func answerShape(b []byte) string {
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '<' {
		return fmt.Sprintf("%s: %q", shapeOf(b), markupText(t))
	}
	return shapeOf(b)
}

// shapeOf describes b without quoting any of it: "a JSON object of kind
// ConfigMap (ns/name), 1234 bytes", "a JSON array, 12 bytes", "12 bytes,
// not JSON", "12 bytes of markup, not JSON".
func shapeOf(b []byte) string {
	t := bytes.TrimLeft(b, " \t\r\n")
	what := "not JSON"
	if len(t) > 0 {
		what = jsonKind(t[0])
	}
	switch {
	case what == "a JSON object":
		head := t[:min(len(t), startLen)]
		if kind := kindIn(head); kind != "" {
			what += " of kind " + kind
		}
		if name := nameIn(head); name != "" {
			what += " (" + name + ")"
		}
	case len(t) > 0 && t[0] == '<':
		return fmt.Sprintf("%d bytes of markup, not JSON", len(b))
	case what == "not JSON":
		return fmt.Sprintf("%d bytes, not JSON", len(b))
	}
	return fmt.Sprintf("%s, %d bytes", what, len(b))
}

// markupText returns the text of markup, tags left out, on one line, cut
// at 200 bytes.
func markupText(b []byte) string {
	var text []byte
	for len(b) > 0 && len(text) <= 200 {
		before, after, _ := bytes.Cut(b, []byte("<"))
		text = append(text, before...)
		text = append(text, ' ')
		_, b, _ = bytes.Cut(after, []byte(">"))
	}
	return truncate(strings.Join(strings.Fields(string(text)), " "), 200)
}

// jsonKind names the kind of JSON value that starts with c.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func jsonKind(c byte) string {
	switch {
	case c == '{':
		return "a JSON object"
	case c == '[':
		return "a JSON array"
	case c == '"':
		return "a JSON string"
	case c == 't' || c == 'f':
		return "a JSON boolean"
	case c == 'n':
		return "JSON null"
	case c == '-' || c >= '0' && c <= '9':
		return "a JSON number"
	}
	return "not JSON"
}

// kindIn returns the kind field at the top of an object's start when it
// reads as a kind (a short word), "" otherwise.
func kindIn(start []byte) string {
	var kind string
	eachMember(start, func(key string, rest []byte) bool {
		if key == "kind" {
			kind = stringAt(rest)
		}
		return key == "kind"
	})
	if len(kind) > 63 || strings.IndexFunc(kind, notWordRune) >= 0 {
		return ""
	}
	return kind
}

// nameIn returns "namespace/name" (or "name") from the metadata at the
// start of an object's JSON, "" when the start does not hold it: the
// server writes metadata before the fields that make an object large.
func nameIn(start []byte) string {
	var k Key
	eachMember(start, func(key string, rest []byte) bool {
		if key != "metadata" {
			return false
		}
		eachMember(rest, func(key string, rest []byte) bool {
			switch key {
			case "name":
				k.Name = stringAt(rest)
			case "namespace":
				k.Namespace = stringAt(rest)
			}
			return false
		})
		return true
	})
	if k.Name == "" {
		return ""
	}
	return k.String()
}

// eachMember walks the members of the object at the start of b (after
// white space or a comma, as a list's item comes), which may be cut
// anywhere: it calls member with each key and the rest of b from the
// member's value on, and stops when member returns true or when b does
// not hold the next key or value whole. It checks no more of the grammar
// than it needs to find the members: this is for naming an object in an
// error, not for decoding it.
func eachMember(b []byte, member func(key string, rest []byte) bool) {
	b = bytes.TrimLeft(b, " \t\r\n,")
	if len(b) == 0 || b[0] != '{' {
		return
	}
	b = b[1:]
	for {
		b = bytes.TrimLeft(b, " \t\r\n,")
		n, ok := jsondec.Extent(b)
		if !ok {
			return
		}
		key, err := jsondec.Unquote(b[:n])
		if err != nil {
			return
		}
		b = bytes.TrimLeft(b[n:], " \t\r\n")
		if len(b) == 0 || b[0] != ':' {
			return
		}
		b = b[1:]
		if member(key, b) {
			return
		}
		if n, ok = jsondec.Extent(b); !ok {
			return
		}
		b = b[n:]
	}
}

// stringAt returns the JSON string at the start of b, "" when b does not
// start with a whole one.
func stringAt(b []byte) string {
	n, ok := jsondec.Extent(b)
	if !ok {
		return ""
	}
	s, _ := jsondec.Unquote(b[:n])
	return s
}

func notWordRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
}

// truncate cuts s to at most n bytes, between runes, marking the cut: the
// text of a UTF-8 body stays UTF-8.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
