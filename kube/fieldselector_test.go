// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

func freq(field, op, value string) kube.FieldRequirement {
	return kube.FieldRequirement{Field: field, Operator: op, Value: value}
}

func TestParseFieldSelector(t *testing.T) {
	tests := []struct {
		in   string
		want []kube.FieldRequirement
		str  string
	}{
		{"", nil, ""},
		{",,", nil, ""},
		{"metadata.name=x", []kube.FieldRequirement{freq("metadata.name", kube.OpEquals, "x")}, "metadata.name=x"},
		{"metadata.name==x", []kube.FieldRequirement{freq("metadata.name", kube.OpEquals, "x")}, "metadata.name=x"},
		{"metadata.name!=x", []kube.FieldRequirement{freq("metadata.name", kube.OpNotEquals, "x")}, "metadata.name!=x"},
		{"spec.nodeName=", []kube.FieldRequirement{freq("spec.nodeName", kube.OpEquals, "")}, "spec.nodeName="},
		{
			"metadata.namespace!=kube-system,metadata.name=x",
			[]kube.FieldRequirement{freq("metadata.name", kube.OpEquals, "x"), freq("metadata.namespace", kube.OpNotEquals, "kube-system")},
			"metadata.name=x,metadata.namespace!=kube-system",
		},
		{"a=b,,c=d,", []kube.FieldRequirement{freq("a", kube.OpEquals, "b"), freq("c", kube.OpEquals, "d")}, "a=b,c=d"},
		{`a=x\,y`, []kube.FieldRequirement{freq("a", kube.OpEquals, "x,y")}, `a=x\,y`},
		{`a=x\=y`, []kube.FieldRequirement{freq("a", kube.OpEquals, "x=y")}, `a=x\=y`},
		{`a=x\\y`, []kube.FieldRequirement{freq("a", kube.OpEquals, `x\y`)}, `a=x\\y`},
		{`a=\\,b=c`, []kube.FieldRequirement{freq("a", kube.OpEquals, `\`), freq("b", kube.OpEquals, "c")}, `a=\\,b=c`},
		{`a!=\,`, []kube.FieldRequirement{freq("a", kube.OpNotEquals, ",")}, `a!=\,`},
		{"a= b c", []kube.FieldRequirement{freq("a", kube.OpEquals, " b c")}, "a= b c"},
		{"a=b!", []kube.FieldRequirement{freq("a", kube.OpEquals, "b!")}, "a=b!"},
		{"a=1,a=2,a!=3", []kube.FieldRequirement{freq("a", kube.OpNotEquals, "3"), freq("a", kube.OpEquals, "1"), freq("a", kube.OpEquals, "2")}, "a!=3,a=1,a=2"},
		{"involvedObject.kind=Pod", []kube.FieldRequirement{freq("involvedObject.kind", kube.OpEquals, "Pod")}, "involvedObject.kind=Pod"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			f, err := kube.ParseFieldSelector(tt.in)
			if err != nil {
				t.Fatalf("ParseFieldSelector(%q) error: %v", tt.in, err)
			}
			if got := f.Requirements(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseFieldSelector(%q).Requirements() = %#v, want %#v", tt.in, got, tt.want)
			}
			if got := f.String(); got != tt.str {
				t.Errorf("ParseFieldSelector(%q).String() = %q, want %q", tt.in, got, tt.str)
			}
			if got, want := f.Empty(), len(tt.want) == 0; got != want {
				t.Errorf("ParseFieldSelector(%q).Empty() = %v, want %v", tt.in, got, want)
			}
			again, err := kube.ParseFieldSelector(f.String())
			if err != nil || !reflect.DeepEqual(again, f) {
				t.Errorf("ParseFieldSelector(%q) = %v, %v, want %v", f.String(), again, err, f)
			}
		})
	}
}

func TestParseFieldSelectorInvalid(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"a", `parse field selector "a": term "a" at position 0 has no operator (=, ==, !=)`},
		{"a=b,c", `term "c" at position 4 has no operator`},
		{"=b", `term "=b" at position 0 has no field name`},
		{"a=b,!=c", `term "!=c" at position 4 has no field name`},
		{"a b=c", `field "a b" at position 0: character ' ' is not allowed`},
		{" a=c", `field " a" at position 0`},
		{"a!!=c", `field "a!" at position 0: character '!' is not allowed`},
		{`a\,b=c`, `character '\\' is not allowed`},
		{"a===b", `value "=b": unescaped '=' at position 3`},
		{"a!==b", `value "=b": unescaped '=' at position 3`},
		{"a=b=c", `value "b=c": unescaped '=' at position 3`},
		{`a=b\`, `value "b\\" at position 2 ends with a lone '\'`},
		{`x=1,a=b\n`, `value "b\\n": invalid escape "\\n" at position 7`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			f, err := kube.ParseFieldSelector(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseFieldSelector(%q) = %v, %v, want error containing %q", tt.in, f, err, tt.want)
			}
		})
	}
}

func TestFieldSelectorMatches(t *testing.T) {
	fields := map[string]string{"metadata.name": "x", "metadata.namespace": "default", "spec.nodeName": ""}
	tests := []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"metadata.name=x", true},
		{"metadata.name==x", true},
		{"metadata.name=y", false},
		{"metadata.name!=y", true},
		{"metadata.name!=x", false},
		{"spec.nodeName=", true},
		{"status.phase=", true},
		{"status.phase!=", false},
		{"status.phase!=Running", true},
		{"status.phase=Running", false},
		{"metadata.name=x,metadata.namespace=default", true},
		{"metadata.name=x,metadata.namespace!=default", false},
	}
	for _, tt := range tests {
		f, err := kube.ParseFieldSelector(tt.sel)
		if err != nil {
			t.Fatalf("ParseFieldSelector(%q) error: %v", tt.sel, err)
		}
		if got := f.Matches(fields); got != tt.want {
			t.Errorf("ParseFieldSelector(%q).Matches(%v) = %v, want %v", tt.sel, fields, got, tt.want)
		}
	}
	var zero kube.FieldSelector
	if !zero.Matches(nil) || !zero.Empty() || zero.String() != "" || zero.Requirements() != nil {
		t.Errorf("zero FieldSelector: Matches(nil) = %v, Empty() = %v, String() = %q, Requirements() = %v, want true, true, \"\", nil",
			zero.Matches(nil), zero.Empty(), zero.String(), zero.Requirements())
	}
}

func TestFieldSelectorFromSet(t *testing.T) {
	tests := []struct {
		set  map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{"metadata.namespace": "ns", "metadata.name": "a,b=c"}, `metadata.name=a\,b\=c,metadata.namespace=ns`},
	}
	for _, tt := range tests {
		f := kube.FieldSelectorFromSet(tt.set)
		if got := f.String(); got != tt.want {
			t.Errorf("FieldSelectorFromSet(%v).String() = %q, want %q", tt.set, got, tt.want)
		}
		if !f.Matches(tt.set) {
			t.Errorf("FieldSelectorFromSet(%v).Matches(%v) = false, want true", tt.set, tt.set)
		}
		again, err := kube.ParseFieldSelector(f.String())
		if err != nil || !reflect.DeepEqual(again, f) {
			t.Errorf("ParseFieldSelector(%q) = %v, %v, want %v", f.String(), again, err, f)
		}
	}
}

func TestFieldSelectorAdd(t *testing.T) {
	base := kube.FieldSelectorFromSet(map[string]string{"b": "1"})
	added := base.Add(freq("a", "==", "x"), freq("c", kube.OpNotEquals, "y"))
	if got, want := added.String(), "a=x,b=1,c!=y"; got != want {
		t.Errorf("Add().String() = %q, want %q", got, want)
	}
	if got, want := base.String(), "b=1"; got != want {
		t.Errorf("after Add, base.String() = %q, want %q", got, want)
	}
	reqs := added.Requirements()
	reqs[0].Value = "changed"
	if got, want := added.String(), "a=x,b=1,c!=y"; got != want {
		t.Errorf("after changing Requirements(), String() = %q, want %q", got, want)
	}
}
