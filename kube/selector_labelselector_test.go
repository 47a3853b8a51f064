// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

func TestLabelSelectorAsSelector(t *testing.T) {
	tests := []struct {
		name string
		in   *kube.LabelSelector
		want string // String() of the result
	}{
		{"nil selects nothing", nil, "kubeloop/nothing,!kubeloop/nothing"},
		{"empty selects everything", &kube.LabelSelector{}, ""},
		{"empty maps select everything", &kube.LabelSelector{MatchLabels: map[string]string{}, MatchExpressions: []kube.LabelSelectorRequirement{}}, ""},
		{"match labels", &kube.LabelSelector{MatchLabels: map[string]string{"b": "2", "a": "1"}}, "a=1,b=2"},
		{
			"expressions",
			&kube.LabelSelector{MatchExpressions: []kube.LabelSelectorRequirement{
				{Key: "tier", Operator: kube.LabelSelectorOpIn, Values: []string{"web", "api"}},
				{Key: "env", Operator: kube.LabelSelectorOpNotIn, Values: []string{"dev"}},
				{Key: "canary", Operator: kube.LabelSelectorOpDoesNotExist},
				{Key: "app", Operator: kube.LabelSelectorOpExists},
			}},
			"app,!canary,env notin (dev),tier in (api,web)",
		},
		{
			"both",
			&kube.LabelSelector{
				MatchLabels:      map[string]string{"app": "web"},
				MatchExpressions: []kube.LabelSelectorRequirement{{Key: "app", Operator: kube.LabelSelectorOpIn, Values: []string{"web"}}},
			},
			"app=web,app in (web)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.in.AsSelector()
			if err != nil {
				t.Fatalf("AsSelector(%+v) error: %v", tt.in, err)
			}
			if got := s.String(); got != tt.want {
				t.Errorf("AsSelector(%+v).String() = %q, want %q", tt.in, got, tt.want)
			}
			again, err := kube.ParseSelector(s.String())
			if err != nil || !reflect.DeepEqual(again, s) {
				t.Errorf("ParseSelector(%q) = %v, %v, want %v", s.String(), again, err, s)
			}
		})
	}
}

func TestLabelSelectorNilVersusEmpty(t *testing.T) {
	var none *kube.LabelSelector
	nothing, err := none.AsSelector()
	if err != nil {
		t.Fatalf("(*LabelSelector)(nil).AsSelector() error: %v", err)
	}
	everything, err := (&kube.LabelSelector{}).AsSelector()
	if err != nil {
		t.Fatalf("(&LabelSelector{}).AsSelector() error: %v", err)
	}
	for _, labels := range []map[string]string{nil, {"a": "b"}} {
		if nothing.Matches(labels) {
			t.Errorf("nil LabelSelector: Matches(%v) = true, want false", labels)
		}
		if !everything.Matches(labels) {
			t.Errorf("empty LabelSelector: Matches(%v) = false, want true", labels)
		}
	}
	if nothing.Empty() || !nothing.SelectsNothing() || nothing.String() == "" {
		t.Errorf("nil LabelSelector: Empty() = %v, SelectsNothing() = %v, String() = %q, want false, true, non-empty",
			nothing.Empty(), nothing.SelectsNothing(), nothing.String())
	}
	if !everything.Empty() || everything.SelectsNothing() || everything.String() != "" {
		t.Errorf("empty LabelSelector: Empty() = %v, SelectsNothing() = %v, String() = %q, want true, false, \"\"",
			everything.Empty(), everything.SelectsNothing(), everything.String())
	}
}

func TestLabelSelectorJSON(t *testing.T) {
	const in = `{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]},{"key":"x","operator":"Exists"}]}`
	var ls kube.LabelSelector
	if err := json.Unmarshal([]byte(in), &ls); err != nil {
		t.Fatalf("json.Unmarshal(%q) error: %v", in, err)
	}
	out, err := json.Marshal(&ls)
	if err != nil || string(out) != in {
		t.Errorf("json.Marshal(%+v) = %s, %v, want %s", ls, out, err, in)
	}
	s, err := ls.AsSelector()
	if got, want := s.String(), "app=web,tier in (a,b),x"; err != nil || got != want {
		t.Errorf("AsSelector(%s) = %q, %v, want %q", in, got, err, want)
	}
	if out, _ := json.Marshal(kube.LabelSelector{}); string(out) != "{}" {
		t.Errorf("json.Marshal(LabelSelector{}) = %s, want {}", out)
	}
}

func TestLabelSelectorAsSelectorInvalid(t *testing.T) {
	tests := []struct {
		name string
		in   kube.LabelSelector
		want string
	}{
		{"bad label key", kube.LabelSelector{MatchLabels: map[string]string{"a b": "c"}}, `convert label selector: matchLabels["a b"]: invalid key "a b"`},
		{"bad label value", kube.LabelSelector{MatchLabels: map[string]string{"a": "-c"}}, `matchLabels["a"]: invalid value "-c"`},
		{"bad operator", kube.LabelSelector{MatchExpressions: []kube.LabelSelectorRequirement{{Key: "a", Operator: "in", Values: []string{"x"}}}},
			`matchExpressions[0]: operator "in" is not one of In, NotIn, Exists, DoesNotExist`},
		{"In without values", kube.LabelSelector{MatchExpressions: []kube.LabelSelectorRequirement{
			{Key: "a", Operator: kube.LabelSelectorOpExists}, {Key: "b", Operator: kube.LabelSelectorOpIn}}},
			`convert label selector: matchExpressions[1]: operator "In" needs at least one value`},
		{"Exists with values", kube.LabelSelector{MatchExpressions: []kube.LabelSelectorRequirement{{Key: "a", Operator: kube.LabelSelectorOpExists, Values: []string{"x"}}}},
			`matchExpressions[0]: operator "Exists" takes no values, got 1`},
		{"bad expression key", kube.LabelSelector{MatchExpressions: []kube.LabelSelectorRequirement{{Key: "", Operator: kube.LabelSelectorOpDoesNotExist}}},
			`matchExpressions[0]: invalid key ""`},
		{"bad expression value", kube.LabelSelector{MatchExpressions: []kube.LabelSelectorRequirement{{Key: "a", Operator: kube.LabelSelectorOpNotIn, Values: []string{"ok", "not ok"}}}},
			`matchExpressions[0]: invalid value "not ok"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.in.AsSelector()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("AsSelector(%+v) = %v, %v, want error containing %q", tt.in, s, err, tt.want)
			}
		})
	}
}
