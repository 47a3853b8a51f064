// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// The fan* types are a graph of shared types without recursion: each level
// holds two fields of the next, so fan0's schema has 2^18 leaves when it
// is written out (a CRD schema has no references). fan9 has 2^9.
type (
	fan0  struct{ X, Y fan1 }
	fan1  struct{ X, Y fan2 }
	fan2  struct{ X, Y fan3 }
	fan3  struct{ X, Y fan4 }
	fan4  struct{ X, Y fan5 }
	fan5  struct{ X, Y fan6 }
	fan6  struct{ X, Y fan7 }
	fan7  struct{ X, Y fan8 }
	fan8  struct{ X, Y fan9 }
	fan9  struct{ X, Y fan10 }
	fan10 struct{ X, Y fan11 }
	fan11 struct{ X, Y fan12 }
	fan12 struct{ X, Y fan13 }
	fan13 struct{ X, Y fan14 }
	fan14 struct{ X, Y fan15 }
	fan15 struct{ X, Y fan16 }
	fan16 struct{ X, Y fan17 }
	fan17 struct{ X, Y string }
)

// fanObject is a resource whose spec is a fan of the given depth.
type fanObject[T any] struct {
	kube.ObjectMeta `json:"metadata"`
	Spec            T `json:"spec"`
}

func (*fanObject[T]) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "test.kubeloop.dev", Version: "v1", Kind: "Fan"}
}

// BenchmarkForFan measures For on the shared-type graph: without a bound
// it writes the whole tree out (2^18 leaves). The crd-bytes metric is the
// size of the CRD's JSON when For returns one.
func BenchmarkForFan(b *testing.B) {
	b.Run("depth=9", func(b *testing.B) { benchmarkFor(b, &fanObject[fan9]{}) })
	b.Run("depth=18", func(b *testing.B) { benchmarkFor(b, &fanObject[fan0]{}) })
}

func benchmarkFor(b *testing.B, obj kube.Object) {
	b.ReportAllocs()
	var c *CustomResourceDefinition
	for b.Loop() {
		c, _ = For(obj, Options{})
	}
	size := 0
	if c != nil {
		enc, _ := json.Marshal(c)
		size = len(enc)
	}
	b.ReportMetric(float64(size), "crd-bytes")
}

func TestForRefusesTooLarge(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  kube.Object
		opts Options
		want []string
	}{
		{"shared types written out 2^18 times", &fanObject[fan0]{}, Options{},
			[]string{": the schema passes 1572864 bytes of JSON, more than kube-apiserver stores", "crd.fan17 ", "crd.fan16 ", `crd:"schemaless"`}},
		{"schema small, CRD large", &fanObject[fan9]{}, Options{PrinterColumns: []PrinterColumn{{Name: "A", Type: "string", JSONPath: ".spec.X.X.X", Description: strings.Repeat("a", 2<<20)}}},
			[]string{"crd: the CRD of crd.fanObject[github.com/kubeloop/kubeloop/kube/crd.fan9] is 2138704 bytes", "of JSON, more than the 1572864 kube-apiserver stores"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := For(tc.obj, tc.opts)
			for _, want := range tc.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("For = %v, want an error containing %q", err, want)
					break
				}
			}
			if c != nil {
				t.Errorf("For returned a CRD with its error")
			}
		})
	}
}

// described is a schema of objects and strings with a format,
// description and pattern, all of which the walker counts.
type described struct {
	A string `json:"a" crd:"format=hostname,description='a host',pattern='^[a-z.]+$'"`
	B struct {
		C string `json:"c,omitempty" crd:"description=C"`
	} `json:"b" crd:"description=B"`
}

// TestSizeIsALowerBound checks that the bytes the walker counts never
// pass the schema's JSON (so a schema is refused only when it is surely
// too large), and that they are all of it for a schema of objects and
// strings with formats, descriptions and patterns (so the walk stops
// soon after the bound).
func TestSizeIsALowerBound(t *testing.T) {
	exact := map[reflect.Type]bool{reflect.TypeFor[fan8](): true, reflect.TypeFor[described](): true}
	for _, typ := range []reflect.Type{reflect.TypeFor[fan8](), reflect.TypeFor[described](), reflect.TypeFor[Gadget](), reflect.TypeFor[goodTags](),
		reflect.TypeFor[Outer](), reflect.TypeFor[kube.ConfigMap]()} {
		w := &walker{}
		s, err := w.structSchema(typ, place{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		// The walker does not count the braces and type of the root.
		want := len(b) - len(`{"type":"object"}`)
		if w.size > want || exact[typ] && w.size != want {
			t.Errorf("%s: counted %d bytes, want at most (for this type exactly) %d", typ, w.size, want)
		}
	}
}
