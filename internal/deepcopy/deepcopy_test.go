// SPDX-License-Identifier: Apache-2.0

package deepcopy_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/internal/deepcopy"
	"github.com/kubeloop/kubeloop/kube"
)

type inner struct {
	N    int
	Tags []string
}

type node struct {
	Name string
	Next *node
}

type withMethod struct {
	Data   []int
	copies *int // counts calls of DeepCopyInto (none), unexported so shared
}

func (w *withMethod) DeepCopyInto(out *withMethod) {
	if w.copies != nil {
		*w.copies++
	}
	*out = *w
	if w.Data != nil {
		out.Data = append([]int{}, w.Data...)
	}
}

type everything struct {
	S        string
	B        []byte
	Raw      json.RawMessage
	Strs     []string
	M        map[string]string
	MB       map[string][]byte
	MS       map[string]inner
	P        *inner
	PP       **int
	Inners   []inner
	Ptrs     []*inner
	Arr      [2][]int
	Any      any
	JSON     map[string]any
	List     *node
	T        time.Time
	Method   withMethod
	unexport []int
}

func sample() *everything {
	n := 7
	pn := &n
	copies := 0
	return &everything{
		S:      "s",
		B:      []byte("bytes"),
		Raw:    json.RawMessage(`{"a":1}`),
		Strs:   []string{"a", "b"},
		M:      map[string]string{"k": "v"},
		MB:     map[string][]byte{"k": []byte("v")},
		MS:     map[string]inner{"k": {N: 1, Tags: []string{"t"}}},
		P:      &inner{N: 2, Tags: []string{"p"}},
		PP:     &pn,
		Inners: []inner{{N: 3, Tags: []string{"i"}}},
		Ptrs:   []*inner{{N: 4}, nil},
		Arr:    [2][]int{{1}, {2}},
		Any:    &inner{N: 5, Tags: []string{"any"}},
		JSON: map[string]any{"spec": map[string]any{"replicas": 3.0, "ports": []any{map[string]any{"port": 80.0}}},
			"custom": []int{1, 2}},
		List:     &node{Name: "a", Next: &node{Name: "b"}},
		T:        time.Date(2026, 11, 21, 4, 48, 10, 0, time.UTC),
		Method:   withMethod{Data: []int{9}, copies: &copies},
		unexport: []int{1},
	}
}

// mutate changes every reference-holding field of e in place.
func mutate(e *everything) {
	e.B[0] = 'X'
	e.Raw[1] = 'X'
	e.Strs[0] = "X"
	e.M["k"] = "X"
	e.MB["k"][0] = 'X'
	e.MS["k"].Tags[0] = "X"
	e.P.N = -1
	e.P.Tags[0] = "X"
	**e.PP = -1
	e.Inners[0].Tags[0] = "X"
	e.Ptrs[0].N = -1
	e.Arr[0][0] = -1
	e.Any.(*inner).Tags[0] = "X"
	e.JSON["spec"].(map[string]any)["ports"].([]any)[0].(map[string]any)["port"] = -1.0
	e.JSON["custom"].([]int)[0] = -1
	e.List.Next.Name = "X"
	e.Method.Data[0] = -1
}

func TestCopyIsIndependent(t *testing.T) {
	copyFn := deepcopy.For[everything]()
	src := sample()
	var dst everything
	copyFn(&dst, src)
	if !reflect.DeepEqual(&dst, src) {
		t.Fatalf("copy differs from source:\n got %+v\nwant %+v", dst, *src)
	}
	if *src.Method.copies != 0 {
		t.Errorf("DeepCopyInto called %d times; the copy is by reflection, want 0", *src.Method.copies)
	}
	mutate(&dst)
	want := sample()
	if !reflect.DeepEqual(src, want) {
		t.Errorf("changing the copy changed the source:\n got %+v\nwant %+v", *src, *want)
	}
}

func TestSourceChangeLeavesCopy(t *testing.T) {
	copyFn := deepcopy.For[everything]()
	src := sample()
	var dst everything
	copyFn(&dst, src)
	mutate(src)
	want := sample()
	if !reflect.DeepEqual(&dst, want) {
		t.Errorf("changing the source changed the copy:\n got %+v\nwant %+v", dst, *want)
	}
}

func TestNilAndEmpty(t *testing.T) {
	copyFn := deepcopy.For[everything]()
	tests := []struct {
		name string
		src  everything
	}{
		{"nil", everything{}},
		{"empty", everything{B: []byte{}, Strs: []string{}, M: map[string]string{}, JSON: map[string]any{}, Inners: []inner{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dst everything
			copyFn(&dst, &tt.src)
			if !reflect.DeepEqual(dst, tt.src) {
				t.Errorf("copy = %+v, want %+v", dst, tt.src)
			}
			if (dst.M == nil) != (tt.src.M == nil) || (dst.B == nil) != (tt.src.B == nil) {
				t.Errorf("nil-ness changed: M %v→%v, B %v→%v", tt.src.M == nil, dst.M == nil, tt.src.B == nil, dst.B == nil)
			}
		})
	}
}

func TestUnexportedFieldsAreShared(t *testing.T) {
	copyFn := deepcopy.For[everything]()
	src := sample()
	var dst everything
	copyFn(&dst, src)
	dst.unexport[0] = 42
	if src.unexport[0] != 42 {
		t.Errorf("unexported slice was copied; the package doc says it is shared")
	}
}

func TestOverwritesDestination(t *testing.T) {
	copyFn := deepcopy.For[everything]()
	dst := sample()
	copyFn(dst, &everything{S: "only"})
	if !reflect.DeepEqual(*dst, everything{S: "only"}) {
		t.Errorf("copy into a used value = %+v, want only S set", *dst)
	}
}

func TestKubeObjects(t *testing.T) {
	cm := &kube.ConfigMap{
		TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: kube.ObjectMeta{Name: "a", Namespace: "default", Labels: map[string]string{"app": "x"},
			OwnerReferences:   []kube.OwnerReference{{Name: "o", Controller: new(bool)}},
			CreationTimestamp: kube.Now(), ManagedFields: json.RawMessage(`[{}]`)},
		Data: map[string]string{"k": "v"},
	}
	var out kube.ConfigMap
	deepcopy.For[kube.ConfigMap]()(&out, cm)
	if !reflect.DeepEqual(&out, cm) {
		t.Fatalf("copy = %+v, want %+v", out, *cm)
	}
	out.Labels["app"] = "changed"
	*out.OwnerReferences[0].Controller = true
	out.ManagedFields[0] = '{'
	if cm.Labels["app"] != "x" || *cm.OwnerReferences[0].Controller || string(cm.ManagedFields) != `[{}]` {
		t.Errorf("changing the copy changed the ConfigMap: %+v", *cm)
	}

	u := &kube.Unstructured{TypeMeta: cm.TypeMeta, ObjectMeta: cm.ObjectMeta,
		Content: map[string]any{"spec": map[string]any{"list": []any{"a", 1.0}}}}
	var uo kube.Unstructured
	deepcopy.For[kube.Unstructured]()(&uo, u)
	if !reflect.DeepEqual(&uo, u) {
		t.Fatalf("copy = %+v, want %+v", uo, *u)
	}
	uo.Content["spec"].(map[string]any)["list"].([]any)[0] = "changed"
	if got := u.Content["spec"].(map[string]any)["list"].([]any)[0]; got != "a" {
		t.Errorf("changing the copy changed the Unstructured: list[0] = %v", got)
	}
}

func TestRecursiveType(t *testing.T) {
	src := &node{Name: "1", Next: &node{Name: "2", Next: &node{Name: "3"}}}
	var dst node
	deepcopy.For[node]()(&dst, src)
	dst.Next.Next.Name = "X"
	if src.Next.Next.Name != "3" {
		t.Errorf("recursive copy shares the tail")
	}
}

func TestOfScalar(t *testing.T) {
	s := "x"
	var d string
	deepcopy.Of(reflect.TypeFor[string]())(reflect.ValueOf(&d).Elem(), reflect.ValueOf(s))
	if d != "x" {
		t.Errorf("copy of string = %q, want %q", d, "x")
	}
}

func benchConfigMap() *kube.ConfigMap {
	return &kube.ConfigMap{
		TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: kube.ObjectMeta{Name: "cm-00001", Namespace: "default", UID: "5708e7b9-af1c-489e-afe6-000000000001",
			ResourceVersion: "1001", CreationTimestamp: kube.Now(), Labels: map[string]string{"app": "demo", "idx": "1"}},
		Data: map[string]string{"k": strings.Repeat("v", 1024)},
	}
}

// benchCopy measures the copier of T on src.
func benchCopy[T any](b *testing.B, src *T) {
	copyFn := deepcopy.For[T]()
	b.ReportAllocs()
	for b.Loop() {
		var dst T
		copyFn(&dst, src)
	}
}

func BenchmarkConfigMap(b *testing.B) {
	src := benchConfigMap()
	b.Run("reflect", func(b *testing.B) { benchCopy(b, src) })
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, _ := json.Marshal(src)
			var dst kube.ConfigMap
			if err := json.Unmarshal(data, &dst); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkUnstructured(b *testing.B) {
	cm := benchConfigMap()
	src := &kube.Unstructured{TypeMeta: cm.TypeMeta, ObjectMeta: cm.ObjectMeta, Content: map[string]any{
		"spec": map[string]any{"replicas": 3.0, "selector": map[string]any{"app": "demo"},
			"template": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx", "ports": []any{map[string]any{"containerPort": 80.0}}}}}},
	}}
	b.Run("reflect", func(b *testing.B) { benchCopy(b, src) })
	b.Run("DeepCopy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = src.DeepCopy()
		}
	})
}
