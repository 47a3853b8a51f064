// SPDX-License-Identifier: Apache-2.0

package jsonpatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
)

func TestCreate(t *testing.T) {
	tests := []struct {
		name, before, after, want string // want: the operations as JSON
	}{
		{"equal", `{"a":[1,{"b":2}]}`, `{"a":[1.0,{"b":2e0}]}`, `[]`},
		{"scalar root", `1`, `"x"`, `[{"op":"replace","path":"","value":"x"}]`},
		{"type change at root", `{}`, `[]`, `[{"op":"replace","path":"","value":[]}]`},
		{"members", `{"a":1,"b":2,"c":3}`, `{"b":2,"c":4,"d":5}`,
			`[{"op":"remove","path":"/a"},{"op":"replace","path":"/c","value":4},{"op":"add","path":"/d","value":5}]`},
		{"nested", `{"m":{"x":{"y":1}}}`, `{"m":{"x":{"y":2}}}`, `[{"op":"replace","path":"/m/x/y","value":2}]`},
		{"escaped names", `{"a/b":1,"c~d":1}`, `{"a/b":2}`,
			`[{"op":"remove","path":"/c~0d"},{"op":"replace","path":"/a~1b","value":2}]`},
		{"null member", `{"a":null}`, `{"a":null,"b":null}`, `[{"op":"add","path":"/b","value":null}]`},
		{"append", `[1,2]`, `[1,2,3,4]`, `[{"op":"add","path":"/2","value":3},{"op":"add","path":"/3","value":4}]`},
		{"insert in the middle", `[1,2,3]`, `[1,9,2,3]`, `[{"op":"add","path":"/1","value":9}]`},
		{"remove in the middle", `[1,2,3,4]`, `[1,4]`, `[{"op":"remove","path":"/2"},{"op":"remove","path":"/1"}]`},
		{"change in the middle", `[1,{"a":1},3]`, `[1,{"a":2},3]`, `[{"op":"replace","path":"/1/a","value":2}]`},
		{"change and grow", `[1,2,3]`, `[1,5,6,7,3]`,
			`[{"op":"replace","path":"/1","value":5},{"op":"add","path":"/2","value":6},{"op":"add","path":"/3","value":7}]`},
		{"empty the array", `[1,2]`, `[]`, `[{"op":"remove","path":"/1"},{"op":"remove","path":"/0"}]`},
		{"repeated elements", `[1,1,1]`, `[1,1]`, `[{"op":"remove","path":"/2"}]`},
		{"big integer", `{"n":12345678901234567890}`, `{"n":12345678901234567891}`,
			`[{"op":"replace","path":"/n","value":12345678901234567891}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, after := mustDecode(t, tt.before), mustDecode(t, tt.after)
			ops := jsonpatch.Create(before, after)
			got, err := json.Marshal(ops)
			if err != nil || string(got) != tt.want {
				t.Errorf("Create(%s, %s) = %s, %v, want %s", tt.before, tt.after, got, err, tt.want)
			}
			checkCreateApply(t, before, after)
		})
	}
}

// checkCreateApply checks the property Create promises, directly and
// through the wire form, and that before is left as it was.
func checkCreateApply(t *testing.T, before, after any) {
	t.Helper()
	saved := jsonpatch.DeepCopy(before)
	ops := jsonpatch.Create(before, after)
	got, err := jsonpatch.ApplyValue(before, ops)
	if err != nil || !jsonpatch.Equal(got, after) {
		t.Fatalf("ApplyValue(%v, Create(%v, %v) = %v) = %v, %v, want %v", before, before, after, ops, got, err, after)
	}
	if !jsonpatch.Equal(before, saved) {
		t.Fatalf("Create and ApplyValue modified before: %v, want %v", before, saved)
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		t.Fatalf("json.Marshal(%v) error: %v", ops, err)
	}
	doc, err := json.Marshal(before)
	if err != nil {
		t.Fatalf("json.Marshal(%v) error: %v", before, err)
	}
	out, err := jsonpatch.Apply(doc, patch)
	if err != nil {
		t.Fatalf("Apply(%s, %s) error: %v", doc, patch, err)
	}
	if v := mustDecode(t, string(out)); !jsonpatch.Equal(v, after) {
		t.Fatalf("Apply(%s, %s) = %s, want %v", doc, patch, out, after)
	}
}

// lookLimited is a context whose deadline passes at its n-th look (a call
// of Err), as when the work outlasts the API server's timeout.
type lookLimited struct {
	context.Context
	looks, n int
}

func (c *lookLimited) Err() error {
	c.looks++
	if c.looks >= c.n {
		return context.DeadlineExceeded
	}
	return nil
}

// TestCreateContextStops: a diff whose context ends partway returns the
// context's error and no operations, and looks no further.
func TestCreateContextStops(t *testing.T) {
	before, after := make([]any, 1000), make([]any, 1200)
	for i := range before {
		before[i] = map[string]any{"n": float64(i)}
	}
	for i := range after {
		after[i] = map[string]any{"n": float64(i), "m": true}
	}
	for _, n := range []int{1, 2, 500, 1500} {
		ctx := &lookLimited{Context: context.Background(), n: n}
		ops, err := jsonpatch.CreateContext(ctx, before, after)
		if !errors.Is(err, context.DeadlineExceeded) || ops != nil {
			t.Errorf("CreateContext(deadline at look %d) = %d operations, %v; want none, %v", n, len(ops), err, context.DeadlineExceeded)
		}
		if ctx.looks != n {
			t.Errorf("deadline at look %d: looked %d times", n, ctx.looks)
		}
	}
	ops, err := jsonpatch.CreateContext(context.Background(), before, after)
	if err != nil || len(ops) != 1200 {
		t.Errorf("CreateContext(Background) = %d operations, %v; want 1200", len(ops), err)
	}
}

// FuzzCreateApply checks that ApplyValue(a, Create(a, b)) equals b for any
// two JSON documents. Each input is read as JSON text when it is valid, and
// otherwise used as a seed for a random document whose member names
// (including "", "~" and "/") and small values collide often.
func FuzzCreateApply(f *testing.F) {
	seeds := [][2]string{
		{`{"a":1}`, `{"a":2}`},
		{`[1,2,3]`, `[3,2,1]`},
		{`{"a/b":{"~":[1,{"x":null}]}}`, `{"a/b":{"~":[{"x":false},1]},"":""}`},
		{`[[1,[2]],[3]]`, `[[1,[2,2]],[]]`},
		{`null`, `{"a":[]}`},
		{"\x01\x02\x03\x04\x05\x06", "\x06\x05\x04\x03\x02\x01"},
		{"\x05\x03\x05\x01\x05\x02\x06", "\x05\x03\x05\x02\x05\x01"},
	}
	for _, s := range seeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		checkCreateApply(t, fuzzValue(a), fuzzValue(b))
	})
}

// fuzzValue reads data as a JSON document (numbers as float64) or, when it
// is not one, generates a document from it.
func fuzzValue(data []byte) any {
	var v any
	if err := json.Unmarshal(data, &v); err == nil {
		return v
	}
	g := generator{data: data}
	return g.value(0)
}

// generator turns bytes into a JSON value, deterministically.
type generator struct {
	data []byte
	pos  int
}

func (g *generator) next() int {
	if g.pos >= len(g.data) {
		return 0
	}
	g.pos++
	return int(g.data[g.pos-1])
}

var fuzzNames = []string{"a", "b", "", "~", "/", "0", "-", "~1"}

func (g *generator) value(depth int) any {
	kind := g.next() % 7
	if depth > 4 && kind >= 5 {
		kind = 3
	}
	switch kind {
	case 0:
		return nil
	case 1:
		return g.next()%2 == 0
	case 2:
		return float64(g.next()%5) / 2
	case 3:
		return fuzzNames[g.next()%len(fuzzNames)]
	case 4:
		return json.Number(strconv.Itoa(g.next() % 3))
	case 5:
		n := g.next() % 5
		arr := make([]any, n)
		for i := range arr {
			arr[i] = g.value(depth + 1)
		}
		return arr
	default:
		n := g.next() % 4
		obj := make(map[string]any, n)
		for range n {
			obj[fuzzNames[g.next()%len(fuzzNames)]] = g.value(depth + 1)
		}
		return obj
	}
}
