// SPDX-License-Identifier: Apache-2.0

package jsonpatch

import (
	"fmt"
	"strconv"
	"strings"
)

// PathError reports a JSON pointer that is not valid RFC 6901 syntax, or
// that does not lead to a value where the operation needs one: a missing
// member, an array index out of range or malformed, or a step into a
// string, number, bool or null.
type PathError struct {
	// Op is the operation ("add", "remove", ...).
	Op string
	// Path is the pointer at fault as written: the operation's path, or
	// its from for move and copy.
	Path string
	// Reason says what is wrong, naming the step that failed.
	Reason string
}

func (e *PathError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Op, e.Path, e.Reason)
}

// parsePointer splits an RFC 6901 pointer into its unescaped reference
// tokens: "" is the whole document (no tokens), "/" the member named "",
// and "~1" and "~0" stand for '/' and '~'.
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("a pointer must be empty or start with '/'")
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		if !strings.Contains(t, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(t); j++ {
			if t[j] != '~' {
				b.WriteByte(t[j])
				continue
			}
			if j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1') {
				return nil, fmt.Errorf("invalid escape in %q: '~' must be followed by '0' or '1'", t)
			}
			if t[j+1] == '0' {
				b.WriteByte('~')
			} else {
				b.WriteByte('/')
			}
			j++
		}
		toks[i] = b.String()
	}
	return toks, nil
}

// appendToken returns the pointer p extended by one reference token,
// escaped: "~" as "~0" first, then "/" as "~1" (RFC 6901).
func appendToken(p, tok string) string {
	return p + "/" + strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// pointerTo renders the first n tokens of toks as a pointer, for messages.
func pointerTo(toks []string, n int) string {
	p := ""
	for _, t := range toks[:n] {
		p = appendToken(p, t)
	}
	return p
}

// arrayIndex reads tok as an index into an array of length n. RFC 6901:
// "0" or digits without a leading zero; "-" is the position after the last
// element, which only add may name (end true). An index must be below n,
// or at most n when end is true.
func arrayIndex(tok string, n int, end bool) (int, error) {
	if tok == "-" {
		if end {
			return n, nil
		}
		return 0, fmt.Errorf("'-' names the position after the last element, where there is no value")
	}
	valid := tok != "" && (tok == "0" || tok[0] != '0')
	for i := 0; valid && i < len(tok); i++ {
		valid = '0' <= tok[i] && tok[i] <= '9'
	}
	if !valid {
		return 0, fmt.Errorf("%q is not an array index", tok)
	}
	i, err := strconv.Atoi(tok)
	limit := n - 1
	if end {
		limit = n
	}
	if err != nil || i > limit {
		return 0, fmt.Errorf("index %s is out of range for an array of length %d", tok, n)
	}
	return i, nil
}

// isProperPrefix reports whether pointer a is a proper prefix of pointer b,
// token by token: "/a" is a proper prefix of "/a/b" but not of "/ab".
func isProperPrefix(a, b []string) bool {
	if len(a) >= len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
