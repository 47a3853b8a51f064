// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"cmp"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// FieldRequirement is one condition of a [FieldSelector]: Field compared by
// Operator ([OpEquals] or [OpNotEquals]) with Value. Value is unescaped:
// the literal the field must (or must not) equal.
type FieldRequirement struct {
	Field    string
	Operator string
	Value    string
}

// Matches reports whether fields satisfy r. A field absent from fields
// has the value "". An unknown operator matches nothing.
func (r FieldRequirement) Matches(fields map[string]string) bool {
	switch r.Operator {
	case OpEquals:
		return fields[r.Field] == r.Value
	case OpNotEquals:
		return fields[r.Field] != r.Value
	}
	return false
}

// String renders r as "field=value" or "field!=value", with '\', ',' and
// '=' in the value escaped by a backslash.
func (r FieldRequirement) String() string {
	return r.Field + r.Operator + escapeFieldValue(r.Value)
}

// FieldSelector is a parsed field selector, the conjunction of its
// requirements, as in "metadata.name=x,metadata.namespace!=y". The zero
// FieldSelector matches everything.
//
// A FieldSelector is an immutable value, safe to copy and to share between
// goroutines.
type FieldSelector struct {
	// reqs is sorted by field, operator, then value; operators are
	// OpEquals or OpNotEquals. Never modified after construction.
	reqs []FieldRequirement
}

// ParseFieldSelector parses a field selector as the server does for
// ?fieldSelector=: terms separated by ',', each "field=value",
// "field==value" or "field!=value". In a value, '\', ',' and '=' must be
// escaped with a backslash ("a=x\,y" is the value "x,y"); no other escape
// is known. The field is everything before the first operator and is
// taken verbatim: no whitespace is trimmed, anywhere. Empty terms
// ("a=b,,c=d") are skipped, as the server skips them.
//
// Beyond the server, which rejects unknown fields per resource, a field
// must be non-empty and free of whitespace, '\' and '!', so that a typo
// fails here with a clear message. Which fields a resource supports is
// not checked. The cost is O(len(s) log len(s)).
func ParseFieldSelector(s string) (FieldSelector, error) {
	var reqs []FieldRequirement
	for start := 0; start <= len(s); {
		end := fieldTermEnd(s, start)
		if term := s[start:end]; term != "" {
			r, err := parseFieldTerm(term, start)
			if err != nil {
				return FieldSelector{}, errs.Errorf("parse field selector %q: %w", s, err)
			}
			reqs = append(reqs, r)
		}
		start = end + 1
	}
	return sortedFieldSelector(reqs), nil
}

// fieldTermEnd returns the offset of the first ',' at or after start that
// no backslash escapes, or len(s).
func fieldTermEnd(s string, start int) int {
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case ',':
			return i
		}
	}
	return len(s)
}

// parseFieldTerm parses one term that starts at offset pos of the input.
func parseFieldTerm(term string, pos int) (FieldRequirement, error) {
	i := strings.IndexByte(term, '=')
	if i < 0 {
		return FieldRequirement{}, errs.Errorf("term %q at position %d has no operator (=, ==, !=)", term, pos)
	}
	r := FieldRequirement{Field: term[:i], Operator: OpEquals}
	rest := term[i+1:]
	switch {
	case strings.HasSuffix(r.Field, "!"):
		r.Field, r.Operator = r.Field[:len(r.Field)-1], OpNotEquals
	case strings.HasPrefix(rest, "="):
		rest = rest[1:]
	}
	if r.Field == "" {
		return r, errs.Errorf("term %q at position %d has no field name", term, pos)
	}
	if j := strings.IndexAny(r.Field, " \t\r\n\\!"); j >= 0 {
		return r, errs.Errorf("field %q at position %d: character %q is not allowed in a field name", r.Field, pos, r.Field[j])
	}
	valuePos := pos + len(term) - len(rest)
	v, err := unescapeFieldValue(rest, valuePos)
	if err != nil {
		return r, err
	}
	r.Value = v
	return r, nil
}

// unescapeFieldValue undoes escapeFieldValue; pos is the offset of v in the
// input, for errors.
func unescapeFieldValue(v string, pos int) (string, error) {
	if !strings.ContainsAny(v, `\,=`) {
		return v, nil
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			if i+1 == len(v) {
				return "", errs.Errorf("value %q at position %d ends with a lone '\\'", v, pos)
			}
			switch n := v[i+1]; n {
			case '\\', ',', '=':
				b.WriteByte(n)
				i++
			default:
				return "", errs.Errorf("value %q: invalid escape %q at position %d (only \\\\, \\, and \\= are known)", v, v[i:i+2], pos+i)
			}
		case ',', '=':
			return "", errs.Errorf("value %q: unescaped %q at position %d", v, c, pos+i)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

var fieldValueEscaper = strings.NewReplacer(`\`, `\\`, `,`, `\,`, `=`, `\=`)

// escapeFieldValue escapes '\', ',' and '=' with a backslash, as the server
// expects in a field selector value.
func escapeFieldValue(v string) string {
	if !strings.ContainsAny(v, `\,=`) {
		return v
	}
	return fieldValueEscaper.Replace(v)
}

// sortedFieldSelector sorts reqs into canonical order and wraps them; an
// empty list becomes the zero FieldSelector, so that equal selectors are
// deeply equal.
func sortedFieldSelector(reqs []FieldRequirement) FieldSelector {
	if len(reqs) == 0 {
		return FieldSelector{}
	}
	sort.SliceStable(reqs, func(i, j int) bool { return compareFieldRequirements(reqs[i], reqs[j]) < 0 }) // see sortedSelector
	return FieldSelector{reqs: reqs}
}

func compareFieldRequirements(a, b FieldRequirement) int {
	return cmp.Or(
		strings.Compare(a.Field, b.Field),
		strings.Compare(a.Operator, b.Operator),
		strings.Compare(a.Value, b.Value),
	)
}

// FieldSelectorFromSet returns a field selector that requires every field
// of set to equal its value. Fields are not validated. A nil or empty set
// gives the zero FieldSelector, which matches everything.
func FieldSelectorFromSet(set map[string]string) FieldSelector {
	if len(set) == 0 {
		return FieldSelector{}
	}
	reqs := make([]FieldRequirement, 0, len(set))
	for _, f := range slices.Sorted(maps.Keys(set)) {
		reqs = append(reqs, FieldRequirement{Field: f, Operator: OpEquals, Value: set[f]})
	}
	return FieldSelector{reqs: reqs}
}

// Matches reports whether fields satisfy every requirement of f; a field
// absent from the map has the value "". The cost is O(len(requirements))
// map lookups.
func (f FieldSelector) Matches(fields map[string]string) bool {
	for _, r := range f.reqs {
		if !r.Matches(fields) {
			return false
		}
	}
	return true
}

// Empty reports whether f has no requirements and so matches everything.
func (f FieldSelector) Empty() bool { return len(f.reqs) == 0 }

// String renders f canonically: requirements sorted by field, operator,
// then value, joined by ",", values escaped. It parses back with
// [ParseFieldSelector] to an equal selector and is what the server accepts
// as ?fieldSelector=. The zero FieldSelector renders as "".
func (f FieldSelector) String() string {
	var b strings.Builder
	for i, r := range f.reqs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(r.String())
	}
	return b.String()
}

// Requirements returns a copy of the requirements of f in canonical order;
// the caller owns the result.
func (f FieldSelector) Requirements() []FieldRequirement {
	return slices.Clone(f.reqs)
}

// Add returns a new field selector with the requirements of f and r; f is
// unchanged. "==" becomes [OpEquals]; nothing is validated.
func (f FieldSelector) Add(r ...FieldRequirement) FieldSelector {
	reqs := make([]FieldRequirement, 0, len(f.reqs)+len(r))
	reqs = append(reqs, f.reqs...)
	for _, x := range r {
		if x.Operator == "==" {
			x.Operator = OpEquals
		}
		reqs = append(reqs, x)
	}
	return sortedFieldSelector(reqs)
}
