// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// Operators of a label [Requirement]. The names are those of the server's
// selection package; "==" parses as [OpEquals].
const (
	OpEquals       = "="
	OpNotEquals    = "!="
	OpIn           = "in"
	OpNotIn        = "notin"
	OpExists       = "exists"
	OpDoesNotExist = "!"
	// OpGreaterThan and OpLessThan compare a label's value, read as a
	// base-10 int64, with the requirement's single value: "replicas>3".
	// A label that is absent or not an integer matches neither.
	OpGreaterThan = "gt"
	OpLessThan    = "lt"
)

// Requirement is one condition of a label [Selector]: a key, an operator
// (one of the Op constants) and the values the operator needs.
//
// Requirements returned by this package have sorted Values without
// duplicates, and nil Values for [OpExists] and [OpDoesNotExist].
type Requirement struct {
	Key      string
	Operator string
	Values   []string
}

// NewRequirement checks a requirement as the server does and returns it in
// normal form: "==" becomes [OpEquals], values are sorted and deduplicated.
//
// The rules: the key is a label key and each value a label value (see
// [ParseSelector]); =, != take one value; in, notin at least one (the empty
// string counts); exists and ! none; gt, lt one base-10 integer.
func NewRequirement(key, op string, values ...string) (Requirement, error) {
	r := normalRequirement(Requirement{Key: key, Operator: op, Values: values})
	if err := r.validate(); err != nil {
		return Requirement{}, errs.Errorf("make requirement %q: %w", r.String(), err)
	}
	return r, nil
}

// validate reports the first way r breaks the rules of [NewRequirement].
// r must be in normal form.
func (r Requirement) validate() error {
	if err := validateLabelKey(r.Key); err != nil {
		return errs.Errorf("invalid key %q: %w", r.Key, err)
	}
	switch r.Operator {
	case OpEquals, OpNotEquals:
		if len(r.Values) != 1 {
			return errs.Errorf("operator %q takes one value, got %d", r.Operator, len(r.Values))
		}
	case OpIn, OpNotIn:
		if len(r.Values) == 0 {
			return errs.Errorf("operator %q takes at least one value", r.Operator)
		}
	case OpExists, OpDoesNotExist:
		if len(r.Values) != 0 {
			return errs.Errorf("operator %q takes no values, got %d", r.Operator, len(r.Values))
		}
	case OpGreaterThan, OpLessThan:
		if len(r.Values) != 1 {
			return errs.Errorf("operator %q takes one value, got %d", r.Operator, len(r.Values))
		}
		if _, err := strconv.ParseInt(r.Values[0], 10, 64); err != nil {
			return errs.Errorf("operator %q needs an integer, got %q", r.Operator, r.Values[0])
		}
	default:
		return errs.Errorf("unknown operator %q", r.Operator)
	}
	for _, v := range r.Values {
		if err := validateLabelValue(v); err != nil {
			return errs.Errorf("invalid value %q: %w", v, err)
		}
	}
	return nil
}

// normalRequirement returns r in normal form, sharing nothing with r.
func normalRequirement(r Requirement) Requirement {
	if r.Operator == "==" {
		r.Operator = OpEquals
	}
	if len(r.Values) == 0 {
		r.Values = nil
		return r
	}
	vals := slices.Clone(r.Values)
	slices.Sort(vals)
	r.Values = slices.Compact(vals)
	return r
}

// Matches reports whether labels satisfy r, with the server's rules: =, in
// need the key present with one of the values; !=, notin hold when the key
// is absent; gt, lt need an integer value. An unknown operator matches
// nothing. The cost is O(log len(Values)).
func (r Requirement) Matches(labels map[string]string) bool {
	v, ok := labels[r.Key]
	switch r.Operator {
	case OpEquals, OpIn:
		return ok && r.hasValue(v)
	case OpNotEquals, OpNotIn:
		return !ok || !r.hasValue(v)
	case OpExists:
		return ok
	case OpDoesNotExist:
		return !ok
	case OpGreaterThan, OpLessThan:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == OpGreaterThan {
			return have > want
		}
		return have < want
	}
	return false
}

// hasValue reports whether v is one of r.Values, which are sorted.
func (r Requirement) hasValue(v string) bool {
	if len(r.Values) == 1 {
		return r.Values[0] == v
	}
	_, found := slices.BinarySearch(r.Values, v)
	return found
}

// String renders r in the selector syntax: "a=b", "a!=b", "a in (x,y)",
// "a notin (x)", "a", "!a", "a>3", "a<3".
func (r Requirement) String() string {
	var b strings.Builder
	r.writeTo(&b)
	return b.String()
}

func (r Requirement) writeTo(b *strings.Builder) {
	// prefix, Key, op, values, suffix: one shape for every operator.
	prefix, op, suffix, values := "", r.Operator, "", true
	switch r.Operator {
	case OpExists:
		op, values = "", false
	case OpDoesNotExist:
		prefix, op, values = "!", "", false
	case OpIn, OpNotIn:
		op, suffix = " "+r.Operator+" (", ")"
	case OpGreaterThan:
		op = ">"
	case OpLessThan:
		op = "<"
	} // =, != and anything unknown (which the server will reject) as they are
	b.WriteString(prefix)
	b.WriteString(r.Key)
	b.WriteString(op)
	if values {
		for i, v := range r.Values {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(v)
		}
	}
	b.WriteString(suffix)
}

// opRank orders operators within one key in canonical form.
func opRank(op string) int {
	switch op {
	case OpExists:
		return 0
	case OpDoesNotExist:
		return 1
	case OpEquals:
		return 2
	case OpNotEquals:
		return 3
	case OpIn:
		return 4
	case OpNotIn:
		return 5
	case OpGreaterThan:
		return 6
	case OpLessThan:
		return 7
	}
	return 8
}

// compareRequirements is the canonical order: key, operator, values.
func compareRequirements(a, b Requirement) int {
	return cmp.Or(
		strings.Compare(a.Key, b.Key),
		cmp.Compare(opRank(a.Operator), opRank(b.Operator)),
		strings.Compare(a.Operator, b.Operator),
		slices.Compare(a.Values, b.Values),
	)
}

// Selector is a parsed label selector: the conjunction of its requirements.
// The zero Selector has none and matches everything; [SelectNothing] (and a
// nil [*LabelSelector]) matches nothing.
//
// A Selector is an immutable value, safe to copy and to share between
// goroutines: no method modifies it, and no method hands out or keeps a
// slice a caller can modify.
type Selector struct {
	// reqs is sorted by compareRequirements; every element is in normal
	// form. Elements are never modified after construction, so selectors
	// made by Add share them.
	reqs []Requirement
}

// sortedSelector sorts reqs, whose elements must be in normal form, into
// canonical order and wraps them; an empty list becomes the zero Selector,
// so that equal selectors are deeply equal.
func sortedSelector(reqs []Requirement) Selector {
	if len(reqs) == 0 {
		return Selector{}
	}
	// sort.SliceStable, not slices.SortStableFunc: the generic sort is
	// compiled anew for each element type, sort.SliceStable once for all.
	sort.SliceStable(reqs, func(i, j int) bool { return compareRequirements(reqs[i], reqs[j]) < 0 })
	return Selector{reqs: reqs}
}

// nothingKey is the label key of the contradiction [SelectNothing] holds.
const nothingKey = "kubeloop/nothing"

// SelectNothing returns a selector that matches no labels. It is made of
// two requirements that contradict each other, "kubeloop/nothing" and
// "!kubeloop/nothing", so that its String, sent to the server as
// ?labelSelector=, also selects nothing, instead of silently selecting
// everything as an empty string would.
func SelectNothing() Selector {
	return Selector{reqs: []Requirement{
		{Key: nothingKey, Operator: OpExists},
		{Key: nothingKey, Operator: OpDoesNotExist},
	}}
}

// SelectorFromSet returns a selector that requires every key of set to have
// its value. It does not validate set: the server rejects invalid keys and
// values. A nil or empty set gives the zero Selector, which matches
// everything.
func SelectorFromSet(set map[string]string) Selector {
	if len(set) == 0 {
		return Selector{}
	}
	reqs := make([]Requirement, 0, len(set))
	for k, v := range set {
		reqs = append(reqs, Requirement{Key: k, Operator: OpEquals, Values: []string{v}})
	}
	return sortedSelector(reqs)
}

// Matches reports whether labels satisfy every requirement of s. A nil map
// is a set of no labels. The cost is O(len(requirements)) map lookups.
func (s Selector) Matches(labels map[string]string) bool {
	for i := range s.reqs {
		if !s.reqs[i].Matches(labels) {
			return false
		}
	}
	return true
}

// Empty reports whether s has no requirements and so matches everything.
func (s Selector) Empty() bool { return len(s.reqs) == 0 }

// SelectsNothing reports whether s holds a contradiction that the server
// would also see: a key required to be absent ("!k") and, in the same
// selector, required to be present ("k", "k=v", "k in (...)", "k>n",
// "k<n"). [SelectNothing] and a nil [*LabelSelector] give such a selector.
// Other selectors that match nothing ("k=a,k=b") are not detected.
func (s Selector) SelectsNothing() bool {
	for i := 0; i < len(s.reqs); {
		j := i
		absent, present := false, false
		for ; j < len(s.reqs) && s.reqs[j].Key == s.reqs[i].Key; j++ {
			switch s.reqs[j].Operator {
			case OpDoesNotExist:
				absent = true
			case OpExists, OpEquals, OpIn, OpGreaterThan, OpLessThan:
				present = true
			}
		}
		if absent && present {
			return true
		}
		i = j
	}
	return false
}

// String renders s canonically: requirements sorted by key, then operator,
// then values, joined by ",", each value list sorted. The result parses
// back with [ParseSelector] to an equal selector and is what the server
// accepts as ?labelSelector=, provided every requirement is valid (only
// [Selector.Add] takes requirements unchecked). The zero Selector renders
// as "".
func (s Selector) String() string {
	var b strings.Builder
	for i, r := range s.reqs {
		if i > 0 {
			b.WriteByte(',')
		}
		r.writeTo(&b)
	}
	return b.String()
}

// Requirements returns a copy of the requirements of s in canonical order;
// the caller owns the result. The cost is O(number of values).
func (s Selector) Requirements() []Requirement {
	if len(s.reqs) == 0 {
		return nil
	}
	out := make([]Requirement, len(s.reqs))
	for i, r := range s.reqs {
		r.Values = slices.Clone(r.Values)
		out[i] = r
	}
	return out
}

// Add returns a new selector with the requirements of s and r; s is
// unchanged and the result shares nothing a caller can modify with s or r.
// The added requirements are put in normal form ("==" becomes "=", values
// sorted and deduplicated) but not validated: build them with
// [NewRequirement] when they come from outside the program, or the server
// will reject the String. Adding to [SelectNothing] still selects nothing.
func (s Selector) Add(r ...Requirement) Selector {
	reqs := make([]Requirement, 0, len(s.reqs)+len(r))
	reqs = append(reqs, s.reqs...)
	for _, x := range r {
		reqs = append(reqs, normalRequirement(x))
	}
	return sortedSelector(reqs)
}
