// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// meta builds a ConfigMap with the metadata predicates look at.
func meta(gen int64, rv string, labels, annotations map[string]string) *kube.ConfigMap {
	return &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "ns", Name: "o", Generation: gen, ResourceVersion: rv, Labels: labels, Annotations: annotations}}
}

// predicateCase is one event and whether the predicate under test allows it.
type predicateCase struct {
	name string
	ev   Change
	want bool
}

func checkPredicate(t *testing.T, p Predicate, cases []predicateCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := p.Allow(c.ev); got != c.want {
				t.Errorf("Allow(%s event) = %v, want %v", c.ev.Type, got, c.want)
			}
		})
	}
}

// otherTypes are events of every type but update, which the "changed"
// predicates allow.
func otherTypes(o kube.Object) []predicateCase {
	return []predicateCase{
		{"create", ev(ChangeCreate, o, nil), true},
		{"delete", ev(ChangeDelete, o, nil), true},
		{"generic", ev(ChangeGeneric, o, nil), true},
	}
}

func TestGenerationChanged(t *testing.T) {
	a := meta(1, "10", nil, nil)
	checkPredicate(t, GenerationChanged(), append(otherTypes(a),
		predicateCase{"spec change", ev(ChangeUpdate, meta(2, "11", nil, nil), a), true},
		predicateCase{"status change", ev(ChangeUpdate, meta(1, "11", nil, nil), a), false},
		predicateCase{"resync", ev(ChangeUpdate, a, a), false},
		predicateCase{"update without old object", Change{Type: ChangeUpdate, Object: a}, false},
	))
}

func TestResourceVersionChanged(t *testing.T) {
	a := meta(1, "10", nil, nil)
	checkPredicate(t, ResourceVersionChanged(), append(otherTypes(a),
		predicateCase{"change", ev(ChangeUpdate, meta(1, "11", nil, nil), a), true},
		predicateCase{"resync", ev(ChangeUpdate, a, a), false},
		predicateCase{"same version, other copy", ev(ChangeUpdate, meta(1, "10", nil, nil), a), false},
	))
}

func TestLabelsChanged(t *testing.T) {
	a := meta(1, "10", map[string]string{"app": "x"}, nil)
	checkPredicate(t, LabelsChanged(), append(otherTypes(a),
		predicateCase{"value changed", ev(ChangeUpdate, meta(1, "11", map[string]string{"app": "y"}, nil), a), true},
		predicateCase{"label added", ev(ChangeUpdate, meta(1, "11", map[string]string{"app": "x", "b": ""}, nil), a), true},
		predicateCase{"labels removed", ev(ChangeUpdate, meta(1, "11", nil, nil), a), true},
		predicateCase{"same labels", ev(ChangeUpdate, meta(2, "11", map[string]string{"app": "x"}, nil), a), false},
		predicateCase{"nil and empty", ev(ChangeUpdate, meta(1, "11", map[string]string{}, nil), meta(1, "10", nil, nil)), false},
	))
}

func TestAnnotationsChanged(t *testing.T) {
	a := meta(1, "10", nil, map[string]string{"note": "x"})
	checkPredicate(t, AnnotationsChanged(), append(otherTypes(a),
		predicateCase{"value changed", ev(ChangeUpdate, meta(1, "11", nil, map[string]string{"note": "y"}), a), true},
		predicateCase{"removed", ev(ChangeUpdate, meta(1, "11", nil, nil), a), true},
		predicateCase{"same annotations", ev(ChangeUpdate, meta(1, "11", map[string]string{"l": "1"}, map[string]string{"note": "x"}), a), false},
	))
}

func TestLabelSelector(t *testing.T) {
	sel := kube.MustParseSelector("app=web,tier!=db")
	web := meta(1, "1", map[string]string{"app": "web"}, nil)
	db := meta(1, "2", map[string]string{"app": "web", "tier": "db"}, nil)
	keyOnly := Change{Key: kube.Key{Namespace: "ns", Name: "x"}}
	normalize(&keyOnly)
	checkPredicate(t, LabelSelector(sel), []predicateCase{
		{"create matching", ev(ChangeCreate, web, nil), true},
		{"create not matching", ev(ChangeCreate, db, nil), false},
		{"update to matching: the new object decides", ev(ChangeUpdate, web, db), true},
		{"update to not matching", ev(ChangeUpdate, db, web), false},
		{"delete matching", ev(ChangeDelete, web, nil), true},
		{"generic not matching", ev(ChangeGeneric, db, nil), false},
		{"generic key only: no labels", keyOnly, false},
	})
}

func TestPredicateFuncs(t *testing.T) {
	no := func(Change) bool { return false }
	a := meta(1, "1", nil, nil)
	checkPredicate(t, PredicateFuncs{Update: no, Generic: no}, []predicateCase{
		{"create: nil func allows", ev(ChangeCreate, a, nil), true},
		{"update", ev(ChangeUpdate, a, a), false},
		{"delete: nil func allows", ev(ChangeDelete, a, nil), true},
		{"generic", ev(ChangeGeneric, a, nil), false},
	})
	checkPredicate(t, PredicateFuncs{Create: no, Delete: no}, []predicateCase{
		{"create", ev(ChangeCreate, a, nil), false},
		{"update: nil func allows", ev(ChangeUpdate, a, a), true},
		{"delete", ev(ChangeDelete, a, nil), false},
	})
}

func TestCombinators(t *testing.T) {
	yes := PredicateFunc(func(Change) bool { return true })
	no := PredicateFunc(func(Change) bool { return false })
	e := ev(ChangeCreate, meta(1, "1", nil, nil), nil)
	tests := []struct {
		name string
		p    Predicate
		want bool
	}{
		{"And()", And(), true},
		{"And(yes, yes)", And(yes, yes), true},
		{"And(yes, no)", And(yes, no), false},
		{"Or()", Or(), false},
		{"Or(no, yes)", Or(no, yes), true},
		{"Or(no, no)", Or(no, no), false},
		{"Not(yes)", Not(yes), false},
		{"Not(no)", Not(no), true},
		{"Not(And(yes, Or(no, yes)))", Not(And(yes, Or(no, yes))), false},
	}
	for _, tt := range tests {
		if got := tt.p.Allow(e); got != tt.want {
			t.Errorf("%s.Allow = %v, want %v", tt.name, got, tt.want)
		}
	}
	// Combined "changed" predicates judge updates and pass other events
	// (Not of one would refuse them: Not(LabelsChanged()) refuses creates).
	specOrLabels := Or(GenerationChanged(), LabelsChanged())
	a := meta(1, "1", map[string]string{"a": "1"}, nil)
	checkPredicate(t, specOrLabels, append(otherTypes(a),
		predicateCase{"spec", ev(ChangeUpdate, meta(2, "2", map[string]string{"a": "1"}, nil), a), true},
		predicateCase{"labels", ev(ChangeUpdate, meta(1, "2", nil, nil), a), true},
		predicateCase{"status", ev(ChangeUpdate, meta(1, "2", map[string]string{"a": "1"}, nil), a), false},
	))
	checkPredicate(t, Not(LabelsChanged()), []predicateCase{{"create", ev(ChangeCreate, a, nil), false}})
}
