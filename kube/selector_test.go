// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

func req(key, op string, values ...string) kube.Requirement {
	return kube.Requirement{Key: key, Operator: op, Values: values}
}

func TestParseSelector(t *testing.T) {
	tests := []struct {
		in   string
		want []kube.Requirement
		str  string // canonical String
	}{
		{"", nil, ""},
		{"  \t\n", nil, ""},
		{"a=b", []kube.Requirement{req("a", kube.OpEquals, "b")}, "a=b"},
		{"a==b", []kube.Requirement{req("a", kube.OpEquals, "b")}, "a=b"},
		{"a!=b", []kube.Requirement{req("a", kube.OpNotEquals, "b")}, "a!=b"},
		{"a=", []kube.Requirement{req("a", kube.OpEquals, "")}, "a="},
		{"a!=,b", []kube.Requirement{req("a", kube.OpNotEquals, ""), req("b", kube.OpExists)}, "a!=,b"},
		{"a", []kube.Requirement{req("a", kube.OpExists)}, "a"},
		{"!a", []kube.Requirement{req("a", kube.OpDoesNotExist)}, "!a"},
		{" ! a ", []kube.Requirement{req("a", kube.OpDoesNotExist)}, "!a"},
		{"a in (y,x,x)", []kube.Requirement{req("a", kube.OpIn, "x", "y")}, "a in (x,y)"},
		{"a in(x)", []kube.Requirement{req("a", kube.OpIn, "x")}, "a in (x)"},
		{"a notin (x)", []kube.Requirement{req("a", kube.OpNotIn, "x")}, "a notin (x)"},
		{"a in ()", []kube.Requirement{req("a", kube.OpIn, "")}, "a in ()"},
		{"a in (,x)", []kube.Requirement{req("a", kube.OpIn, "", "x")}, "a in (,x)"},
		{"a in (x,)", []kube.Requirement{req("a", kube.OpIn, "", "x")}, "a in (,x)"},
		{"a in (x,,y)", []kube.Requirement{req("a", kube.OpIn, "", "x", "y")}, "a in (,x,y)"},
		{"a in ( x , y )", []kube.Requirement{req("a", kube.OpIn, "x", "y")}, "a in (x,y)"},
		{"a>3", []kube.Requirement{req("a", kube.OpGreaterThan, "3")}, "a>3"},
		{"a < 10", []kube.Requirement{req("a", kube.OpLessThan, "10")}, "a<10"},
		{"in=in", []kube.Requirement{req("in", kube.OpEquals, "in")}, "in=in"},
		{"notin in (in,notin)", []kube.Requirement{req("notin", kube.OpIn, "in", "notin")}, "notin in (in,notin)"},
		{
			"z=1, a.b/c in (x), !m,b!=2",
			[]kube.Requirement{
				req("a.b/c", kube.OpIn, "x"), req("b", kube.OpNotEquals, "2"),
				req("m", kube.OpDoesNotExist), req("z", kube.OpEquals, "1"),
			},
			"a.b/c in (x),b!=2,!m,z=1",
		},
		{
			"a=x,a,!a,a in (y)",
			[]kube.Requirement{
				req("a", kube.OpExists), req("a", kube.OpDoesNotExist),
				req("a", kube.OpEquals, "x"), req("a", kube.OpIn, "y"),
			},
			"a,!a,a=x,a in (y)",
		},
		{
			"app.kubernetes.io/name=web,tier notin (cache,db)",
			[]kube.Requirement{req("app.kubernetes.io/name", kube.OpEquals, "web"), req("tier", kube.OpNotIn, "cache", "db")},
			"app.kubernetes.io/name=web,tier notin (cache,db)",
		},
		{"a=" + strings.Repeat("v", 63), []kube.Requirement{req("a", kube.OpEquals, strings.Repeat("v", 63))}, "a=" + strings.Repeat("v", 63)},
		{"A_b-C.9", []kube.Requirement{req("A_b-C.9", kube.OpExists)}, "A_b-C.9"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := kube.ParseSelector(tt.in)
			if err != nil {
				t.Fatalf("ParseSelector(%q) error: %v", tt.in, err)
			}
			if got := s.Requirements(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSelector(%q).Requirements() = %#v, want %#v", tt.in, got, tt.want)
			}
			if got := s.String(); got != tt.str {
				t.Errorf("ParseSelector(%q).String() = %q, want %q", tt.in, got, tt.str)
			}
			if got, want := s.Empty(), len(tt.want) == 0; got != want {
				t.Errorf("ParseSelector(%q).Empty() = %v, want %v", tt.in, got, want)
			}
			again, err := kube.ParseSelector(s.String())
			if err != nil || !reflect.DeepEqual(again, s) {
				t.Errorf("ParseSelector(%q) = %v, %v, want %v", s.String(), again, err, s)
			}
		})
	}
}

func TestParseSelectorInvalid(t *testing.T) {
	long := strings.Repeat("x", 64)
	tests := []struct {
		in   string
		want string // a substring of the error
	}{
		{"a in (x", `parse label selector "a in (x": expected ')' at position 7`},
		{"a in (x y)", `expected ',' or ')' at position 8, found "y"`},
		{"a in x", `expected '(' at position 5, found "x"`},
		{"a in (x", "position 7"},
		{"a b", `expected an operator (=, ==, !=, in, notin, >, <), ',' or end of input at position 2, found "b"`},
		{"a=b c", `expected ',' or end of input at position 4, found "c"`},
		{"a=b,", `expected a label key at position 4`},
		{",a", `expected a label key at position 0, found ","`},
		{"!", "expected a label key at position 1"},
		{"!a=b", `expected ',' or end of input at position 2, found "="`},
		{"a===b", `expected a value at position 3, found "="`},
		{"a=(b)", `expected a value at position 2, found "("`},
		{"a<=3", `expected a value at position 2, found "="`},
		{"a>x", `invalid value "x" at position 2: operator ">" needs an integer`},
		{"a>", `invalid value "" at position 2`},
		{"a>-1", `invalid value "-1" for key "a" at position 2`},
		{"a=-b", `invalid value "-b" for key "a" at position 2: value must be empty or consist of alphanumerics`},
		{"a in (x,_)", `invalid value "_" for key "a" at position 8`},
		{"a=" + long, "value is longer than 63 characters"},
		{long, "name is longer than 63 characters"},
		{"-a", `invalid key "-a" at position 0: name must consist of alphanumerics`},
		{"a/b/c", `invalid key "a/b/c"`},
		{"/a", `invalid key "/a" at position 0: prefix before '/' is empty`},
		{"a/", `invalid key "a/" at position 0: name is empty`},
		{"Example.com/a", `prefix "Example.com" must be a lowercase DNS-1123 subdomain`},
		{"a..b/c", `prefix "a..b" must be a lowercase DNS-1123 subdomain`},
		{"a-.b/c", `prefix "a-.b"`},
		{strings.Repeat("a.", 127) + "a/b", "prefix is longer than 253 characters"},
		{"a=b;c", `invalid value "b;c"`},
		{"a in ((x))", `expected ',' or ')' at position 6, found "("`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := kube.ParseSelector(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseSelector(%q) = %v, %v, want error containing %q", tt.in, s, err, tt.want)
			}
		})
	}
}

func TestMustParseSelectorPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Errorf("MustParseSelector(%q) did not panic", "a in (")
		}
	}()
	kube.MustParseSelector("a in (")
}

func TestSelectorMatches(t *testing.T) {
	labels := map[string]string{"app": "web", "tier": "front", "replicas": "5", "empty": ""}
	tests := []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"app=web", true},
		{"app==web", true},
		{"app=db", false},
		{"app!=db", true},
		{"app!=web", false},
		{"missing!=x", true},
		{"missing=x", false},
		{"missing=", false},
		{"empty=", true},
		{"empty", true},
		{"!empty", false},
		{"app", true},
		{"!app", false},
		{"!missing", true},
		{"missing", false},
		{"app in (db,web)", true},
		{"app in (db)", false},
		{"missing in (x)", false},
		{"app notin (db)", true},
		{"app notin (db,web)", false},
		{"missing notin (x)", true},
		{"replicas>4", true},
		{"replicas>5", false},
		{"replicas<6", true},
		{"replicas<5", false},
		{"app>1", false},
		{"missing<1", false},
		{"app=web,tier=front", true},
		{"app=web,tier=back", false},
		{"app=web,!tier", false},
		{"a in (x,y,z,w),b", false},
	}
	for _, tt := range tests {
		if got := kube.MustParseSelector(tt.sel).Matches(labels); got != tt.want {
			t.Errorf("MustParseSelector(%q).Matches(%v) = %v, want %v", tt.sel, labels, got, tt.want)
		}
	}
	if got := kube.MustParseSelector("!a,b!=c").Matches(nil); !got {
		t.Errorf("MustParseSelector(%q).Matches(nil) = %v, want %v", "!a,b!=c", got, true)
	}
	var zero kube.Selector
	if !zero.Matches(nil) || !zero.Empty() || zero.String() != "" || zero.Requirements() != nil {
		t.Errorf("zero Selector: Matches(nil) = %v, Empty() = %v, String() = %q, Requirements() = %v, want true, true, \"\", nil",
			zero.Matches(nil), zero.Empty(), zero.String(), zero.Requirements())
	}
}

func TestSelectorFromSet(t *testing.T) {
	tests := []struct {
		set  map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{}, ""},
		{map[string]string{"b": "2", "a": "1", "c": ""}, "a=1,b=2,c="},
	}
	for _, tt := range tests {
		s := kube.SelectorFromSet(tt.set)
		if got := s.String(); got != tt.want {
			t.Errorf("SelectorFromSet(%v).String() = %q, want %q", tt.set, got, tt.want)
		}
		if !s.Matches(tt.set) {
			t.Errorf("SelectorFromSet(%v).Matches(%v) = false, want true", tt.set, tt.set)
		}
	}
	s := kube.SelectorFromSet(map[string]string{"a": "1"})
	for _, labels := range []map[string]string{nil, {"a": "2"}, {"b": "1"}} {
		if s.Matches(labels) {
			t.Errorf("SelectorFromSet(a=1).Matches(%v) = true, want false", labels)
		}
	}
}

func TestSelectorAdd(t *testing.T) {
	base := kube.MustParseSelector("b=1")
	vals := []string{"y", "x", "y"}
	added := base.Add(req("a", kube.OpIn, vals...), req("c", "==", "3"))
	if got, want := added.String(), "a in (x,y),b=1,c=3"; got != want {
		t.Errorf("Add().String() = %q, want %q", got, want)
	}
	if got, want := base.String(), "b=1"; got != want {
		t.Errorf("after Add, base.String() = %q, want %q", got, want)
	}
	vals[0] = "changed"
	if got, want := added.String(), "a in (x,y),b=1,c=3"; got != want {
		t.Errorf("after changing the caller's values, String() = %q, want %q", got, want)
	}
	reqs := added.Requirements()
	reqs[0].Values[0] = "changed"
	reqs[1].Key = "changed"
	if got, want := added.String(), "a in (x,y),b=1,c=3"; got != want {
		t.Errorf("after changing Requirements(), String() = %q, want %q", got, want)
	}
	// Two Adds to one base must not share a backing array.
	s1 := base.Add(req("x", kube.OpExists))
	s2 := base.Add(req("y", kube.OpExists))
	if s1.String() != "b=1,x" || s2.String() != "b=1,y" {
		t.Errorf("base.Add(x), base.Add(y) = %q, %q, want %q, %q", s1, s2, "b=1,x", "b=1,y")
	}
}

func TestNewRequirement(t *testing.T) {
	tests := []struct {
		key, op string
		values  []string
		want    string // String(), or an error substring when wantErr
		wantErr bool
	}{
		{"a", "==", []string{"b"}, "a=b", false},
		{"a", kube.OpIn, []string{"z", "y", "z"}, "a in (y,z)", false},
		{"a", kube.OpIn, []string{""}, "a in ()", false},
		{"a", kube.OpGreaterThan, []string{"12"}, "a>12", false},
		{"a", kube.OpIn, nil, "takes at least one value", true},
		{"a", kube.OpEquals, []string{"b", "c"}, "takes one value, got 2", true},
		{"a", kube.OpExists, []string{"b"}, "takes no values", true},
		{"a", kube.OpLessThan, []string{"b"}, `needs an integer, got "b"`, true},
		{"a", "like", []string{"b"}, `unknown operator "like"`, true},
		{"a b", kube.OpExists, nil, `invalid key "a b"`, true},
		{"a", kube.OpNotEquals, []string{"b c"}, `invalid value "b c"`, true},
	}
	for _, tt := range tests {
		r, err := kube.NewRequirement(tt.key, tt.op, tt.values...)
		switch {
		case tt.wantErr && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("NewRequirement(%q, %q, %q) = %v, %v, want error containing %q", tt.key, tt.op, tt.values, r, err, tt.want)
		case !tt.wantErr && (err != nil || r.String() != tt.want):
			t.Errorf("NewRequirement(%q, %q, %q) = %v, %v, want %q", tt.key, tt.op, tt.values, r, err, tt.want)
		}
	}
}

func TestSelectNothing(t *testing.T) {
	n := kube.SelectNothing()
	for _, labels := range []map[string]string{nil, {}, {"a": "b"}, {"kubeloop/nothing": ""}} {
		if n.Matches(labels) {
			t.Errorf("SelectNothing().Matches(%v) = true, want false", labels)
		}
	}
	if n.Empty() || !n.SelectsNothing() || n.String() == "" {
		t.Errorf("SelectNothing(): Empty() = %v, SelectsNothing() = %v, String() = %q, want false, true, non-empty",
			n.Empty(), n.SelectsNothing(), n.String())
	}
	again, err := kube.ParseSelector(n.String())
	if err != nil || !reflect.DeepEqual(again, n) {
		t.Errorf("ParseSelector(%q) = %v, %v, want %v", n.String(), again, err, n)
	}
	if !n.Add(req("a", kube.OpExists)).SelectsNothing() {
		t.Errorf("SelectNothing().Add(a).SelectsNothing() = false, want true")
	}
	for sel, want := range map[string]bool{
		"": false, "a": false, "!a": false, "a,!a": true, "a=1,!a": true, "!a,a in (x)": true,
		"a>1,!a": true, "a!=1,!a": false, "a notin (x),!a": false, "!a,b": false, "a,!b": false,
	} {
		if got := kube.MustParseSelector(sel).SelectsNothing(); got != want {
			t.Errorf("MustParseSelector(%q).SelectsNothing() = %v, want %v", sel, got, want)
		}
	}
}

func BenchmarkSelectorMatches(b *testing.B) {
	labels := map[string]string{
		"app.kubernetes.io/name": "web", "app.kubernetes.io/part-of": "shop",
		"tier": "front", "track": "stable", "pod-template-hash": "6d4cf56db6",
	}
	for _, sel := range []string{
		"app.kubernetes.io/name=web",
		"app.kubernetes.io/name=web,tier in (back,front,middle),!canary,track!=beta",
	} {
		s := kube.MustParseSelector(sel)
		b.Run(sel, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !s.Matches(labels) {
					b.Fatal("no match")
				}
			}
		})
	}
}
