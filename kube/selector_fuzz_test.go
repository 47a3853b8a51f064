// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// FuzzParseSelector checks that parsing never panics and that the String of
// a parsed selector parses back to an equal selector that matches the same
// labels.
func FuzzParseSelector(f *testing.F) {
	for _, s := range []string{
		"", "a", "!a", "a=b", "a==b", "a!=b", "a in (x,y)", "a notin ()", "a in (,x,)",
		"a>1", "a<2", "x/y=z,!q,r in (s)", "in in (in)", "a=b c", "a in (x", "a=,b!=",
		"example.com/a-b_c.d=E.f_g-h", "a\tin\n(x)", "!a,a", "a>-1", "a<=1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := kube.ParseSelector(in)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "parse label selector ") {
				t.Errorf("ParseSelector(%q) error %q lacks the prefix", in, err)
			}
			return
		}
		out := s.String()
		again, err := kube.ParseSelector(out)
		if err != nil {
			t.Fatalf("ParseSelector(%q) (String of ParseSelector(%q)) error: %v", out, in, err)
		}
		if !reflect.DeepEqual(again.Requirements(), s.Requirements()) {
			t.Fatalf("ParseSelector(%q).Requirements() = %v, want %v", out, again.Requirements(), s.Requirements())
		}
		if got := again.String(); got != out {
			t.Fatalf("ParseSelector(%q).String() = %q, want %q", out, got, out)
		}
		// Whatever was parsed, matching the labels it names must agree.
		labels := map[string]string{}
		for _, r := range s.Requirements() {
			if len(r.Values) > 0 {
				labels[r.Key] = r.Values[0]
			}
		}
		if a, b := s.Matches(labels), again.Matches(labels); a != b {
			t.Fatalf("Matches(%v): %q gives %v, %q gives %v", labels, in, a, out, b)
		}
	})
}

// FuzzParseFieldSelector checks that parsing never panics and that the
// String of a parsed field selector parses back to an equal one.
func FuzzParseFieldSelector(f *testing.F) {
	for _, s := range []string{
		"", "a=b", "a==b", "a!=b", `a=x\,y\=z\\`, "a=b,,c!=", "a", "=b", `a=b\`, "a!!=b", "a=b=c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := kube.ParseFieldSelector(in)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "parse field selector ") {
				t.Errorf("ParseFieldSelector(%q) error %q lacks the prefix", in, err)
			}
			return
		}
		out := s.String()
		again, err := kube.ParseFieldSelector(out)
		if err != nil {
			t.Fatalf("ParseFieldSelector(%q) (String of ParseFieldSelector(%q)) error: %v", out, in, err)
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("ParseFieldSelector(%q) = %v, want %v", out, again.Requirements(), s.Requirements())
		}
		fields := map[string]string{}
		for _, r := range s.Requirements() {
			fields[r.Field] = r.Value
		}
		if a, b := s.Matches(fields), again.Matches(fields); a != b {
			t.Fatalf("Matches(%v): %q gives %v, %q gives %v", fields, in, a, out, b)
		}
	})
}
