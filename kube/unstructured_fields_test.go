// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// decoded returns an Unstructured decoded from JSON, as the client hands
// them out.
func decoded(t *testing.T, s string, useNumber bool) *kube.Unstructured {
	t.Helper()
	u := new(kube.Unstructured)
	if !useNumber {
		if err := json.Unmarshal([]byte(s), u); err != nil {
			t.Fatal(err)
		}
		return u
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	u.Content = m
	return u
}

const fieldsDoc = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},
	"spec":{"name":"w1","replicas":3,"big":9007199254740993,"ratio":0.25,"half":1.5,"enabled":true,"none":null,
		"args":["a","b",3],"labels":{"app":"web","tier":1},"list":[1,"x"],"obj":{"k":"v"}}}`

func TestUnstructuredTypedReads(t *testing.T) {
	for _, useNumber := range []bool{false, true} {
		t.Run(fmt.Sprintf("UseNumber=%v", useNumber), func(t *testing.T) {
			u := decoded(t, fieldsDoc, useNumber)
			check := func(what string, got any, err error, want any) {
				t.Helper()
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %#v, %v, want %#v", what, got, err, want)
				}
			}
			s, err := u.NestedString("spec", "name")
			check("NestedString(spec.name)", s, err, "w1")
			i, err := u.NestedInt64("spec", "replicas")
			check("NestedInt64(spec.replicas)", i, err, int64(3))
			f, err := u.NestedFloat64("spec", "ratio")
			check("NestedFloat64(spec.ratio)", f, err, 0.25)
			f, err = u.NestedFloat64("spec", "replicas")
			check("NestedFloat64(spec.replicas)", f, err, 3.0)
			b, err := u.NestedBool("spec", "enabled")
			check("NestedBool(spec.enabled)", b, err, true)
			m, err := u.NestedMap("spec", "obj")
			check("NestedMap(spec.obj)", m, err, map[string]any{"k": "v"})
			sl, err := u.NestedSlice("spec", "args")
			if err != nil || len(sl) != 3 {
				t.Errorf("NestedSlice(spec.args) = %v, %v, want 3 elements", sl, err)
			}
			if useNumber {
				// json.Number keeps the integer float64 would round.
				i, err = u.NestedInt64("spec", "big")
				check("NestedInt64(spec.big)", i, err, int64(9007199254740993))
			}
		})
	}
}

func TestUnstructuredTypedReadErrors(t *testing.T) {
	for _, useNumber := range []bool{false, true} {
		u := decoded(t, fieldsDoc, useNumber)
		for _, tc := range []struct {
			read     func() error
			want     string
			notFound bool
		}{
			{func() error { _, err := u.NestedString("spec", "missing"); return err }, "spec.missing: not found", true},
			{func() error { _, err := u.NestedString("spec", "gone", "deeper"); return err }, "spec.gone.deeper: spec.gone not found", true},
			{func() error { _, err := u.NestedString("spec", "replicas"); return err }, "spec.replicas: is a number, want a string", false},
			{func() error { _, err := u.NestedString("spec", "none"); return err }, "spec.none: is null, want a string", false},
			{func() error { _, err := u.NestedString("spec", "name", "x"); return err }, "spec.name.x: spec.name is a string, want an object", false},
			{func() error { _, err := u.NestedInt64("spec", "half"); return err }, "spec.half: is a non-integral number, want an integer", false},
			{func() error { _, err := u.NestedInt64("spec", "name"); return err }, "spec.name: is a string, want an integer", false},
			{func() error { _, err := u.NestedFloat64("spec", "enabled"); return err }, "spec.enabled: is a boolean, want a number", false},
			{func() error { _, err := u.NestedBool("spec", "obj"); return err }, "spec.obj: is an object, want a boolean", false},
			{func() error { _, err := u.NestedMap("spec", "list"); return err }, "spec.list: is an array, want an object", false},
			{func() error { _, err := u.NestedSlice("spec", "obj"); return err }, "spec.obj: is an object, want an array", false},
			{func() error { _, err := u.NestedStringSlice("spec", "args"); return err }, "spec.args: spec.args[2] is a number, want a string", false},
			{func() error { _, err := u.NestedStringMap("spec", "labels"); return err }, "spec.labels: spec.labels.tier is a number, want a string", false},
			{func() error { _, err := u.NestedStringMap("spec", "name"); return err }, "spec.name: is a string, want an object", false},
		} {
			err := tc.read()
			if err == nil || err.Error() != tc.want {
				t.Errorf("error = %v, want %q", err, tc.want)
				continue
			}
			if got := errors.Is(err, kube.ErrFieldNotFound); got != tc.notFound {
				t.Errorf("%v: errors.Is(ErrFieldNotFound) = %v, want %v", err, got, tc.notFound)
			}
			var fe *kube.FieldError
			if !errors.As(err, &fe) || !strings.HasPrefix(fe.Path, "spec.") {
				t.Errorf("%v: not a *FieldError with the path read", err)
			}
		}
	}
}

func TestUnstructuredReadsWhatSetFieldWrote(t *testing.T) {
	var u kube.Unstructured
	u.SetField([]string{"a", "b"}, "spec", "args")
	u.SetField(map[string]string{"app": "web"}, "spec", "selector")
	u.SetField(7, "spec", "replicas")
	u.SetField(uint64(1)<<63, "spec", "huge")

	args, err := u.NestedStringSlice("spec", "args")
	if err != nil || !reflect.DeepEqual(args, []string{"a", "b"}) {
		t.Errorf("NestedStringSlice = %v, %v", args, err)
	}
	args[0] = "changed"
	if again, _ := u.NestedStringSlice("spec", "args"); again[0] != "a" {
		t.Errorf("NestedStringSlice returned the held slice, want a copy")
	}
	sel, err := u.NestedStringMap("spec", "selector")
	if err != nil || sel["app"] != "web" {
		t.Errorf("NestedStringMap = %v, %v", sel, err)
	}
	if m, err := u.NestedMap("spec", "selector"); err != nil || m["app"] != "web" {
		t.Errorf("NestedMap of a map[string]string = %v, %v", m, err)
	}
	if s, err := u.NestedSlice("spec", "args"); err != nil || len(s) != 2 || s[1] != "b" {
		t.Errorf("NestedSlice of a []string = %v, %v", s, err)
	}
	if n, err := u.NestedInt64("spec", "replicas"); err != nil || n != 7 {
		t.Errorf("NestedInt64 of an int = %d, %v", n, err)
	}
	if _, err := u.NestedInt64("spec", "huge"); err == nil || err.Error() != "spec.huge: is a number beyond int64, want an integer" {
		t.Errorf("NestedInt64 of 2^63 = %v", err)
	}
	if f, err := u.NestedFloat64("spec", "huge"); err != nil || f != 1<<63 {
		t.Errorf("NestedFloat64 of 2^63 = %v, %v", f, err)
	}

	if !u.RemoveField("spec", "replicas") || u.RemoveField("spec", "replicas") || u.RemoveField("nope", "x") {
		t.Errorf("RemoveField: want true once, then false")
	}
	if _, err := u.NestedInt64("spec", "replicas"); !errors.Is(err, kube.ErrFieldNotFound) {
		t.Errorf("after RemoveField: %v, want not found", err)
	}
}

func ExampleUnstructured_NestedInt64() {
	var u kube.Unstructured
	_ = json.Unmarshal([]byte(`{"spec":{"replicas":3,"ratio":0.5},"status":{}}`), &u)

	replicas, err := u.NestedInt64("spec", "replicas")
	fmt.Println(replicas, err)
	_, err = u.NestedInt64("spec", "ratio")
	fmt.Println(err)
	_, err = u.NestedString("status", "phase")
	fmt.Println(err, errors.Is(err, kube.ErrFieldNotFound))
	// Output:
	// 3 <nil>
	// spec.ratio: is a non-integral number, want an integer
	// status.phase: not found true
}
