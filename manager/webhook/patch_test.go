// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

func TestWebhookMutationPatch(t *testing.T) {
	tests := []struct {
		name string
		// original is what the API server sent; before its typed view;
		// after the typed view once changed; want original with the change.
		original, before, after, want string
	}{
		{"no change keeps undeclared fields",
			`{"metadata":{"name":"a","managedFields":[{"x":1}]},"spec":{"size":1,"extra":true}}`,
			`{"metadata":{"name":"a"},"spec":{"size":1}}`,
			`{"metadata":{"name":"a"},"spec":{"size":1}}`,
			`{"metadata":{"name":"a","managedFields":[{"x":1}]},"spec":{"size":1,"extra":true}}`},
		{"change beside undeclared fields",
			`{"spec":{"size":1,"extra":true},"status":{"x":1}}`,
			`{"spec":{"size":1}}`,
			`{"spec":{"size":3}}`,
			`{"spec":{"size":3,"extra":true},"status":{"x":1}}`},
		{"zero value of the typed view, unchanged, is not added",
			`{"metadata":{"name":"a"}}`,
			`{"metadata":{"name":"a"},"spec":{"size":0,"color":""}}`,
			`{"metadata":{"name":"a","labels":{"l":"1"}},"spec":{"size":0,"color":""}}`,
			`{"metadata":{"name":"a","labels":{"l":"1"}}}`},
		{"zero value of the typed view, changed, is added whole",
			`{"metadata":{"name":"a"}}`,
			`{"metadata":{"name":"a"},"spec":{"size":0,"color":""}}`,
			`{"metadata":{"name":"a"},"spec":{"size":2,"color":""}}`,
			`{"metadata":{"name":"a"},"spec":{"size":2,"color":""}}`},
		{"removal",
			`{"metadata":{"name":"a","annotations":{"x":"1","y":"2"}},"other":1}`,
			`{"metadata":{"name":"a","annotations":{"x":"1","y":"2"}}}`,
			`{"metadata":{"name":"a","annotations":{"y":"2"}}}`,
			`{"metadata":{"name":"a","annotations":{"y":"2"}},"other":1}`},
		{"array elements changed in place keep undeclared fields",
			`{"containers":[{"name":"a","image":"x","resources":{"cpu":1}},{"name":"b","resources":{"cpu":2}}]}`,
			`{"containers":[{"name":"a","image":"x"},{"name":"b","image":""}]}`,
			`{"containers":[{"name":"a","image":"x"},{"name":"b","image":"default"}]}`,
			`{"containers":[{"name":"a","image":"x","resources":{"cpu":1}},{"name":"b","resources":{"cpu":2},"image":"default"}]}`},
		{"array element appended",
			`{"list":[{"n":1,"u":true}]}`,
			`{"list":[{"n":1}]}`,
			`{"list":[{"n":1},{"n":2}]}`,
			`{"list":[{"n":1,"u":true},{"n":2}]}`},
		{"array element removed, the rest moved",
			`{"list":[{"n":1,"u":1},{"n":2,"u":2},{"n":3,"u":3}]}`,
			`{"list":[{"n":1},{"n":2},{"n":3}]}`,
			`{"list":[{"n":1},{"n":3}]}`,
			`{"list":[{"n":1,"u":1},{"n":3,"u":3}]}`},
		{"array reordered",
			`{"list":[{"n":1,"u":1},{"n":2,"u":2}]}`,
			`{"list":[{"n":1},{"n":2}]}`,
			`{"list":[{"n":2},{"n":1}]}`,
			`{"list":[{"n":2,"u":2},{"n":1,"u":1}]}`},
		{"type change",
			`{"spec":{"a":{"b":1,"c":2}}}`,
			`{"spec":{"a":{"b":1}}}`,
			`{"spec":{"a":"flat"}}`,
			`{"spec":{"a":"flat"}}`},
		{"big numbers stay exact",
			`{"n":12345678901234567890,"m":1}`,
			`{"n":12345678901234567890,"m":1}`,
			`{"n":12345678901234567890,"m":2}`,
			`{"n":12345678901234567890,"m":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, err := webhook.MutationPatch(context.Background(), []byte(tt.original), []byte(tt.before), []byte(tt.after))
			if err != nil {
				t.Fatalf("MutationPatch() error: %v", err)
			}
			var original, want any
			mustUnmarshal(t, tt.original, &original)
			mustUnmarshal(t, tt.want, &want)
			got, err := jsonpatch.ApplyValue(original, ops)
			if err != nil {
				t.Fatalf("ApplyValue(original, %v) error: %v", ops, err)
			}
			if !jsonpatch.Equal(got, want) {
				gotJSON, _ := json.Marshal(got)
				opsJSON, _ := json.Marshal(ops)
				t.Errorf("original patched with %s = %s, want %s", opsJSON, gotJSON, tt.want)
			}
		})
	}
	if _, err := webhook.MutationPatch(context.Background(), []byte(`{`), []byte(`{}`), []byte(`{}`)); err == nil {
		t.Errorf("MutationPatch(bad JSON) = nil error, want one")
	}
}

func mustUnmarshal(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("json.Unmarshal(%s) error: %v", s, err)
	}
}

// changedArray returns the three documents of a defaulter that sets a
// field on every one of n elements of an array, whose elements carry a
// field the handler's type does not declare: original (as the API server
// sent it), before (the typed view) and after (the typed view changed).
func changedArray(n int) (original, before, after []byte) {
	var o, b, a bytes.Buffer
	for _, w := range []*bytes.Buffer{&o, &b, &a} {
		w.WriteString(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"items":[`)
	}
	for i := range n {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&o, `%s{"name":"item-%d","port":%d,"note":"undeclared"}`, sep, i, i)
		fmt.Fprintf(&b, `%s{"name":"item-%d","port":%d}`, sep, i, i)
		fmt.Fprintf(&a, `%s{"name":"item-%d","port":%d,"protocol":"TCP"}`, sep, i, i)
	}
	for _, w := range []*bytes.Buffer{&o, &b, &a} {
		w.WriteString(`]}}`)
	}
	return o.Bytes(), b.Bytes(), a.Bytes()
}

// lookLimited is a context whose deadline passes at its n-th look (a call
// of Err), as when the work outlasts the API server's timeout; n = 0
// never passes, and counts the looks.
type lookLimited struct {
	context.Context
	looks, n int
}

func (c *lookLimited) Err() error {
	c.looks++
	if c.n > 0 && c.looks >= c.n {
		return context.DeadlineExceeded
	}
	return nil
}

// TestMutationPatchStopsAtDeadline: whenever the deadline passes during
// the work (carrying the change over, then diffing), MutationPatch stops
// there and returns the deadline's error.
func TestMutationPatchStopsAtDeadline(t *testing.T) {
	original, before, after := changedArray(1000)
	all := &lookLimited{Context: context.Background()}
	if ops, err := webhook.MutationPatch(all, original, before, after); err != nil || len(ops) != 1000 {
		t.Fatalf("MutationPatch() = %d operations, %v; want 1000", len(ops), err)
	}
	for _, n := range []int{1, all.looks / 4, all.looks / 2, all.looks * 3 / 4, all.looks} {
		ctx := &lookLimited{Context: context.Background(), n: n}
		ops, err := webhook.MutationPatch(ctx, original, before, after)
		if !errors.Is(err, context.DeadlineExceeded) || ops != nil {
			t.Errorf("deadline at look %d of %d: MutationPatch() = %d operations, %v; want %v", n, all.looks, len(ops), err, context.DeadlineExceeded)
		}
		if ctx.looks != n {
			t.Errorf("deadline at look %d of %d: looked %d times, want no look after it", n, all.looks, ctx.looks)
		}
	}
}

// BenchmarkMutationPatch: the patch of a defaulter that changes every
// element of an array of n; the time per element must not grow with n.
func BenchmarkMutationPatch(b *testing.B) {
	for _, n := range []int{10000, 20000, 40000} {
		b.Run(fmt.Sprintf("changed=%d", n), func(b *testing.B) {
			original, before, after := changedArray(n)
			b.SetBytes(int64(len(original)))
			b.ReportAllocs()
			for b.Loop() {
				ops, err := webhook.MutationPatch(context.Background(), original, before, after)
				if err != nil || len(ops) != n {
					b.Fatalf("MutationPatch() = %d operations, %v; want %d", len(ops), err, n)
				}
			}
		})
	}
}
