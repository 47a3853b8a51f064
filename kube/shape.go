// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kubeloop/kubeloop/internal/errs"
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
	dec := topField(start, "kind")
	if dec == nil {
		return ""
	}
	tok, err := dec.Token()
	kind, _ := tok.(string)
	if err != nil || len(kind) > 63 || strings.IndexFunc(kind, notWordRune) >= 0 {
		return ""
	}
	return kind
}

// nameIn returns "namespace/name" (or "name") from the metadata at the
// start of an object's JSON, "" when the start does not hold it: the
// server writes metadata before the fields that make an object large.
func nameIn(start []byte) string {
	dec := topField(start, "metadata")
	if dec == nil {
		return ""
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	var k Key
	for dec.More() {
		field, err := dec.Token()
		if err != nil {
			break
		}
		v, err := dec.Token()
		if err != nil {
			break
		}
		switch s, _ := v.(string); field {
		case "name":
			k.Name = s
		case "namespace":
			k.Namespace = s
		}
		if d, ok := v.(json.Delim); ok && (d == '{' || d == '[') && skipRest(dec) != nil {
			break
		}
	}
	if k.Name == "" {
		return ""
	}
	return k.String()
}

// topField returns a decoder of the start of an object's JSON (after a
// comma or spaces, as a list's item comes) positioned at the value of its
// top-level field key, nil when the start does not hold that field.
func topField(start []byte, key string) *json.Decoder {
	start = bytes.TrimLeft(start, " \t\r\n,")
	dec := json.NewDecoder(bytes.NewReader(start))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		if k == key {
			return dec
		}
		if skipValue(dec) != nil {
			return nil
		}
	}
	return nil
}

func notWordRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
}

// jsonError rewrites an error of encoding/json so that it quotes no value:
// a type mismatch names the field and the kinds, a syntax error its
// offset. Other errors (of a type's own UnmarshalJSON) pass as they are.
func jsonError(err error) error {
	te, isType := errs.As[*json.UnmarshalTypeError](err)
	se, isSyntax := errs.As[*json.SyntaxError](err)
	switch {
	case isType:
		// Value is "string", "number", "number 123" (the number, or a
		// map key, quoted): keep the first word.
		kind, _, _ := strings.Cut(te.Value, " ")
		field := te.Field
		switch {
		case field == "":
			field = "the value"
		case te.Struct != "":
			field = "field " + te.Struct + "." + field
		default:
			field = "field " + field
		}
		return fmt.Errorf("%s: cannot decode a JSON %s at offset %d into %v", field, kind, te.Offset, te.Type)
	case isSyntax:
		return fmt.Errorf("invalid JSON at offset %d", se.Offset)
	case err != nil && strings.HasPrefix(err.Error(), "json: invalid use of ,string struct tag"):
		return errors.New("json: a ,string field holds a value that is not a quoted number or boolean")
	}
	return err
}

// tokenKind describes a JSON token without quoting it.
func tokenKind(tok json.Token, err error) string {
	if err != nil {
		return "garbage (" + jsonError(err).Error() + ")"
	}
	switch tok := tok.(type) {
	case json.Delim:
		return "'" + tok.String() + "'"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("a %T", tok)
}

// skipValue reads the next value of dec, token by token.
func skipValue(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		return skipRest(dec)
	}
	return nil
}

// skipRest reads the rest of an object or array whose opening delimiter
// was just read.
func skipRest(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
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
