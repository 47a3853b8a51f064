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
			s, err := kube.NestedString(u.Content, "spec", "name")
			check("NestedString(spec.name)", s, err, "w1")
			i, err := kube.NestedInt64(u.Content, "spec", "replicas")
			check("NestedInt64(spec.replicas)", i, err, int64(3))
			f, err := kube.NestedFloat64(u.Content, "spec", "ratio")
			check("NestedFloat64(spec.ratio)", f, err, 0.25)
			f, err = kube.NestedFloat64(u.Content, "spec", "replicas")
			check("NestedFloat64(spec.replicas)", f, err, 3.0)
			b, err := kube.NestedBool(u.Content, "spec", "enabled")
			check("NestedBool(spec.enabled)", b, err, true)
			m, err := kube.NestedMap(u.Content, "spec", "obj")
			check("NestedMap(spec.obj)", m, err, map[string]any{"k": "v"})
			sl, err := kube.NestedSlice(u.Content, "spec", "args")
			if err != nil || len(sl) != 3 {
				t.Errorf("NestedSlice(spec.args) = %v, %v, want 3 elements", sl, err)
			}
			if useNumber {
				// json.Number keeps the integer float64 would round.
				i, err = kube.NestedInt64(u.Content, "spec", "big")
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
			{func() error { _, err := kube.NestedString(u.Content, "spec", "missing"); return err }, "spec.missing: not found", true},
			{func() error { _, err := kube.NestedString(u.Content, "spec", "gone", "deeper"); return err }, "spec.gone.deeper: spec.gone not found", true},
			{func() error { _, err := kube.NestedString(u.Content, "spec", "replicas"); return err }, "spec.replicas: is a number, want a string", false},
			{func() error { _, err := kube.NestedString(u.Content, "spec", "none"); return err }, "spec.none: is null, want a string", false},
			{func() error { _, err := kube.NestedString(u.Content, "spec", "name", "x"); return err }, "spec.name.x: spec.name is a string, want an object", false},
			{func() error { _, err := kube.NestedInt64(u.Content, "spec", "half"); return err }, "spec.half: is a non-integral number, want an integer", false},
			{func() error { _, err := kube.NestedInt64(u.Content, "spec", "name"); return err }, "spec.name: is a string, want an integer", false},
			{func() error { _, err := kube.NestedFloat64(u.Content, "spec", "enabled"); return err }, "spec.enabled: is a boolean, want a number", false},
			{func() error { _, err := kube.NestedBool(u.Content, "spec", "obj"); return err }, "spec.obj: is an object, want a boolean", false},
			{func() error { _, err := kube.NestedMap(u.Content, "spec", "list"); return err }, "spec.list: is an array, want an object", false},
			{func() error { _, err := kube.NestedSlice(u.Content, "spec", "obj"); return err }, "spec.obj: is an object, want an array", false},
			{func() error { _, err := kube.NestedStringSlice(u.Content, "spec", "args"); return err }, "spec.args: spec.args[2] is a number, want a string", false},
			{func() error { _, err := kube.NestedStringMap(u.Content, "spec", "labels"); return err }, "spec.labels: spec.labels.tier is a number, want a string", false},
			{func() error { _, err := kube.NestedStringMap(u.Content, "spec", "name"); return err }, "spec.name: is a string, want an object", false},
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

	args, err := kube.NestedStringSlice(u.Content, "spec", "args")
	if err != nil || !reflect.DeepEqual(args, []string{"a", "b"}) {
		t.Errorf("NestedStringSlice = %v, %v", args, err)
	}
	args[0] = "changed"
	if again, _ := kube.NestedStringSlice(u.Content, "spec", "args"); again[0] != "a" {
		t.Errorf("NestedStringSlice returned the held slice, want a copy")
	}
	sel, err := kube.NestedStringMap(u.Content, "spec", "selector")
	if err != nil || sel["app"] != "web" {
		t.Errorf("NestedStringMap = %v, %v", sel, err)
	}
	if m, err := kube.NestedMap(u.Content, "spec", "selector"); err != nil || m["app"] != "web" {
		t.Errorf("NestedMap of a map[string]string = %v, %v", m, err)
	}
	if s, err := kube.NestedSlice(u.Content, "spec", "args"); err != nil || len(s) != 2 || s[1] != "b" {
		t.Errorf("NestedSlice of a []string = %v, %v", s, err)
	}
	if n, err := kube.NestedInt64(u.Content, "spec", "replicas"); err != nil || n != 7 {
		t.Errorf("NestedInt64 of an int = %d, %v", n, err)
	}
	if _, err := kube.NestedInt64(u.Content, "spec", "huge"); err == nil || err.Error() != "spec.huge: is a number beyond int64, want an integer" {
		t.Errorf("NestedInt64 of 2^63 = %v", err)
	}
	if f, err := kube.NestedFloat64(u.Content, "spec", "huge"); err != nil || f != 1<<63 {
		t.Errorf("NestedFloat64 of 2^63 = %v, %v", f, err)
	}

	if !kube.RemoveNestedField(u.Content, "spec", "replicas") || kube.RemoveNestedField(u.Content, "spec", "replicas") || kube.RemoveNestedField(u.Content, "nope", "x") {
		t.Errorf("RemoveField: want true once, then false")
	}
	if _, err := kube.NestedInt64(u.Content, "spec", "replicas"); !errors.Is(err, kube.ErrFieldNotFound) {
		t.Errorf("after RemoveField: %v, want not found", err)
	}
}

func ExampleNestedInt64() {
	var u kube.Unstructured
	_ = json.Unmarshal([]byte(`{"spec":{"replicas":3,"ratio":0.5},"status":{}}`), &u)

	replicas, err := kube.NestedInt64(u.Content, "spec", "replicas")
	fmt.Println(replicas, err)
	_, err = kube.NestedInt64(u.Content, "spec", "ratio")
	fmt.Println(err)
	_, err = kube.NestedString(u.Content, "status", "phase")
	fmt.Println(err, errors.Is(err, kube.ErrFieldNotFound))
	// Output:
	// 3 <nil>
	// spec.ratio: is a non-integral number, want an integer
	// status.phase: not found true
}

func TestNestedReadsOnNestedObjects(t *testing.T) {
	u := decoded(t, `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}]},{"name":"b"}]}}`, false)
	containers, err := kube.NestedSlice(u.Content, "spec", "containers")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range containers {
		m, ok := c.(map[string]any)
		if !ok {
			t.Fatalf("container %v is not an object", c)
		}
		name, err := kube.NestedString(m, "name")
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	if fmt.Sprint(names) != "[a b]" {
		t.Errorf("names = %v, want [a b]", names)
	}
	if _, err := kube.NestedString(nil, "x"); !errors.Is(err, kube.ErrFieldNotFound) {
		t.Errorf("NestedString(nil) = %v, want not found", err)
	}
}
