// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"maps"
	"slices"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// Operators of a [LabelSelectorRequirement], as the wire spells them.
const (
	LabelSelectorOpIn           = "In"
	LabelSelectorOpNotIn        = "NotIn"
	LabelSelectorOpExists       = "Exists"
	LabelSelectorOpDoesNotExist = "DoesNotExist"
)

// LabelSelector is the wire form of a label selector found in specs
// (metav1.LabelSelector: a Deployment's spec.selector, a
// NetworkPolicy's podSelector). Its requirements are ANDed. Convert it
// with [LabelSelector.AsSelector] before matching.
type LabelSelector struct {
	// MatchLabels requires each key to have its value.
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
	// MatchExpressions are set-based requirements.
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one set-based requirement of a
// [LabelSelector].
type LabelSelectorRequirement struct {
	Key string `json:"key"`
	// Operator is In, NotIn, Exists or DoesNotExist (the LabelSelectorOp
	// constants).
	Operator string `json:"operator"`
	// Values must be non-empty for In and NotIn, empty otherwise.
	Values []string `json:"values,omitempty"`
}

// AsSelector converts ls to a [Selector], validating it as the server does.
//
// As in Kubernetes, a nil *LabelSelector selects nothing and an empty one
// (no matchLabels, no matchExpressions) selects everything. The nothing
// case gives [SelectNothing], whose String also selects nothing on the
// server (see [Selector.SelectsNothing]); it is never the empty string.
//
// An error names the field at fault, as in
// `convert label selector: matchExpressions[1]: operator "In" needs at least one value`.
func (ls *LabelSelector) AsSelector() (Selector, error) {
	if ls == nil {
		return SelectNothing(), nil
	}
	reqs := make([]Requirement, 0, len(ls.MatchLabels)+len(ls.MatchExpressions))
	for _, k := range slices.Sorted(maps.Keys(ls.MatchLabels)) {
		r := normalRequirement(Requirement{Key: k, Operator: OpEquals, Values: []string{ls.MatchLabels[k]}})
		if err := r.validate(); err != nil {
			return Selector{}, errs.Errorf("convert label selector: matchLabels[%q]: %w", k, err)
		}
		reqs = append(reqs, r)
	}
	for i, e := range ls.MatchExpressions {
		r, err := e.requirement()
		if err != nil {
			return Selector{}, errs.Errorf("convert label selector: matchExpressions[%d]: %w", i, err)
		}
		reqs = append(reqs, r)
	}
	return sortedSelector(reqs), nil
}

// requirement converts e to a validated [Requirement] in normal form.
func (e LabelSelectorRequirement) requirement() (Requirement, error) {
	var op string
	switch e.Operator {
	case LabelSelectorOpIn:
		op = OpIn
	case LabelSelectorOpNotIn:
		op = OpNotIn
	case LabelSelectorOpExists:
		op = OpExists
	case LabelSelectorOpDoesNotExist:
		op = OpDoesNotExist
	default:
		return Requirement{}, errs.Errorf("operator %q is not one of In, NotIn, Exists, DoesNotExist", e.Operator)
	}
	switch {
	case (op == OpIn || op == OpNotIn) && len(e.Values) == 0:
		return Requirement{}, errs.Errorf("operator %q needs at least one value", e.Operator)
	case (op == OpExists || op == OpDoesNotExist) && len(e.Values) != 0:
		return Requirement{}, errs.Errorf("operator %q takes no values, got %d", e.Operator, len(e.Values))
	}
	r := normalRequirement(Requirement{Key: e.Key, Operator: op, Values: e.Values})
	if err := r.validate(); err != nil {
		return Requirement{}, err
	}
	return r, nil
}
