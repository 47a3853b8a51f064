// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// FuzzLabelSelectorJSON decodes a LabelSelector from JSON and converts it.
// A conversion error names a field that is at fault on its own
// (matchLabels["k"] or matchExpressions[i]). A selector converted without
// error survives a JSON round trip and a round trip through its String,
// and matches exactly the label sets the wire form's rules say it matches
// (label sets made from the keys and values it names, chosen by pick).
func FuzzLabelSelectorJSON(f *testing.F) {
	for _, s := range []string{
		`null`,
		`{}`,
		`{"matchLabels":{},"matchExpressions":[]}`,
		`{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]},{"key":"x","operator":"Exists"}]}`,
		`{"matchExpressions":[{"key":"tier","operator":"In","values":["web","api"]},{"key":"env","operator":"NotIn","values":["dev"]},{"key":"canary","operator":"DoesNotExist"},{"key":"app","operator":"Exists"}]}`,
		`{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"app","operator":"In","values":["web"]}]}`,
		`{"matchLabels":{"example.com/a-b_c.d":"E.f_g-h","k":""}}`,
		`{"matchLabels":{"a b":"c"}}`,
		`{"matchLabels":{"a":"-c","b":"ok"}}`,
		`{"matchExpressions":[{"key":"a","operator":"in","values":["x"]}]}`,
		`{"matchExpressions":[{"key":"a","operator":"Exists"},{"key":"b","operator":"In"}]}`,
		`{"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]}`,
		`{"matchExpressions":[{"key":"","operator":"DoesNotExist"}]}`,
		`{"matchExpressions":[{"key":"a","operator":"NotIn","values":["ok","not ok"]}]}`,
		`{"matchExpressions":[{"key":"a","operator":"In","values":["x","x",""]},{"key":"a","operator":"DoesNotExist"}]}`,
		`{"matchLabels":{"a":1}}`,
	} {
		f.Add([]byte(s), uint64(0))
		f.Add([]byte(s), uint64(0x5a5a5a5a))
	}
	f.Fuzz(func(t *testing.T, data []byte, pick uint64) {
		var ls *kube.LabelSelector
		if json.Unmarshal(data, &ls) != nil {
			return
		}
		s, err := ls.AsSelector()
		if err != nil {
			checkNamesField(t, ls, err)
			return
		}
		if ls == nil && !s.SelectsNothing() {
			t.Errorf("nil LabelSelector gives %q, which does not select nothing", s)
		}

		// Text round trip.
		again, err := kube.ParseSelector(s.String())
		if err != nil {
			t.Fatalf("AsSelector(%s).String() = %q does not parse: %v", data, s, err)
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("ParseSelector(%q) = %q, want %q", s, again, s)
		}

		// JSON round trip.
		out, err := json.Marshal(ls)
		if err != nil {
			t.Fatalf("json.Marshal(%+v) error: %v", ls, err)
		}
		var ls2 *kube.LabelSelector
		if err := json.Unmarshal(out, &ls2); err != nil {
			t.Fatalf("json.Unmarshal(%s) error: %v", out, err)
		}
		s2, err := ls2.AsSelector()
		if err != nil || !reflect.DeepEqual(s2, s) {
			t.Fatalf("after a JSON round trip (%s) AsSelector = %q, %v, want %q", out, s2, err, s)
		}

		// Matching, against the rules of the wire form.
		for _, labels := range labelSets(ls, pick) {
			if got, want := s.Matches(labels), wireMatches(ls, labels); got != want {
				t.Fatalf("AsSelector(%s) = %q: Matches(%v) = %v, want %v", data, s, labels, got, want)
			}
			if got, want := again.Matches(labels), s.Matches(labels); got != want {
				t.Fatalf("ParseSelector(%q).Matches(%v) = %v, AsSelector's %v", s, labels, got, want)
			}
		}
	})
}

// checkNamesField checks that err names a field of ls that fails on its own.
func checkNamesField(t *testing.T, ls *kube.LabelSelector, err error) {
	t.Helper()
	msg, ok := strings.CutPrefix(err.Error(), "convert label selector: ")
	if !ok {
		t.Fatalf("AsSelector(%+v) error %q lacks the prefix", ls, err)
	}
	for k, v := range ls.MatchLabels {
		if strings.HasPrefix(msg, fmt.Sprintf("matchLabels[%q]: ", k)) {
			if _, err := (&kube.LabelSelector{MatchLabels: map[string]string{k: v}}).AsSelector(); err == nil {
				t.Fatalf("AsSelector(%+v) error %q names matchLabels[%q], which converts alone", ls, msg, k)
			}
			return
		}
	}
	for i, e := range ls.MatchExpressions {
		if strings.HasPrefix(msg, fmt.Sprintf("matchExpressions[%d]: ", i)) {
			one := &kube.LabelSelector{MatchExpressions: []kube.LabelSelectorRequirement{e}}
			if _, err := one.AsSelector(); err == nil {
				t.Fatalf("AsSelector(%+v) error %q names matchExpressions[%d], which converts alone", ls, msg, i)
			}
			return
		}
	}
	t.Fatalf("AsSelector(%+v) error %q names no field of the selector", ls, err)
}

// wireMatches is the meaning of a LabelSelector as the API documents it.
func wireMatches(ls *kube.LabelSelector, labels map[string]string) bool {
	if ls == nil {
		return false
	}
	for k, v := range ls.MatchLabels {
		if have, ok := labels[k]; !ok || have != v {
			return false
		}
	}
	for _, e := range ls.MatchExpressions {
		have, ok := labels[e.Key]
		in := ok && slices.Contains(e.Values, have)
		switch e.Operator {
		case kube.LabelSelectorOpIn:
			if !in {
				return false
			}
		case kube.LabelSelectorOpNotIn:
			if in {
				return false
			}
		case kube.LabelSelectorOpExists:
			if !ok {
				return false
			}
		case kube.LabelSelectorOpDoesNotExist:
			if ok {
				return false
			}
		}
	}
	return true
}

// labelSets returns label sets over the keys ls names: no labels, every
// key with its first value, and a few sets where pick chooses, key by key,
// absent, one of the values ls names, or a value it does not name.
func labelSets(ls *kube.LabelSelector, pick uint64) []map[string]string {
	if ls == nil {
		return []map[string]string{nil, {"a": "b"}}
	}
	values := map[string][]string{}
	for k, v := range ls.MatchLabels {
		values[k] = append(values[k], v)
	}
	for _, e := range ls.MatchExpressions {
		values[e.Key] = append(values[e.Key], e.Values...)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range values {
			if !yield(k) {
				return
			}
		}
	})
	sets := []map[string]string{nil}
	first := map[string]string{}
	for _, k := range keys {
		if vs := values[k]; len(vs) > 0 {
			first[k] = vs[0]
		} else {
			first[k] = ""
		}
	}
	sets = append(sets, first)
	for round := range 4 {
		m := map[string]string{}
		x := pick>>(round*8) | pick<<(64-round*8)
		for _, k := range keys {
			vs := values[k]
			switch c := x % 4; {
			case c == 0:
			case c == 1 || len(vs) == 0:
				m[k] = "zz-not-named"
			default:
				m[k] = vs[int(x/4)%len(vs)]
			}
			x = x*6364136223846793005 + 1442695040888963407
		}
		sets = append(sets, m)
	}
	return sets
}
