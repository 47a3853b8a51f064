// SPDX-License-Identifier: Apache-2.0

package jsonpatch_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
)

// TestApplyValueLimitBound copies each value once under a limit of its
// exact JSON size (which must pass) and of one byte less (which must
// fail): the count is the length encoding/json gives.
func TestApplyValueLimitBound(t *testing.T) {
	values := []any{
		nil, true, false, "", "plain", "quote\" back\\ ctl\n\t\x01\x1f", "<&>", "héllo 世界",
		"bad \xff utf8", "sep \u2028 \u2029", json.Number("12345678901234567890"),
		0.0, 1.5, -2.0, 1e20, 1e21, 1e-6, 1e-7, 123456789e-30, math.MaxFloat64, math.SmallestNonzeroFloat64,
		int64(-42), 7, uint8(255),
		map[string]any{}, []any{}, map[string]any(nil), []any(nil),
		map[string]any{"a": []any{1.0, "x", nil, map[string]any{"k\n": false}}, "b": map[string]any{}},
	}
	for _, v := range values {
		enc, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		enc = []byte(strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(string(enc),
			`\u003c`, "<"), `\u003e`, ">"), `\u0026`, "&")) // without HTML escaping
		doc := map[string]any{"v": v}
		ops := []jsonpatch.Operation{{Op: jsonpatch.OpCopy, From: "/v", Path: "/w"}}
		size := int64(len(enc))
		if _, err := jsonpatch.ApplyValueLimit(doc, ops, size); err != nil {
			t.Errorf("copy %s under a limit of its size %d: %v", enc, size, err)
		}
		var cle *jsonpatch.CopyLimitError
		if _, err := jsonpatch.ApplyValueLimit(doc, ops, size-1); size > 1 && !errors.As(err, &cle) {
			t.Errorf("copy %s under a limit of %d = %v, want a *CopyLimitError", enc, size-1, err)
		}
	}
}

// TestApplyValueLimitDoubling checks that copies adding up past the limit
// fail, all or nothing, where each alone fits: 17 copies that each double
// a 5 KB document would make it 640 MiB.
func TestApplyValueLimitDoubling(t *testing.T) {
	doc := map[string]any{"d": map[string]any{"k": strings.Repeat("x", 5000)}}
	var ops []jsonpatch.Operation
	for i := range 17 {
		ops = append(ops, jsonpatch.Operation{Op: jsonpatch.OpCopy, From: "/d", Path: fmt.Sprintf("/d/c%d", i)})
	}
	const limit = 3 << 20
	_, err := jsonpatch.ApplyValueLimit(doc, ops, limit)
	var cle *jsonpatch.CopyLimitError
	if !errors.As(err, &cle) || cle.Limit != limit {
		t.Fatalf("ApplyValueLimit(17 doubling copies, %d) = %v, want a *CopyLimitError of %d", limit, err, limit)
	}
	// 5 KB doubled 9 times is 2.5 MiB copied in all: within the limit.
	got, err := jsonpatch.ApplyValueLimit(doc, ops[:9], limit)
	if err != nil {
		t.Fatalf("ApplyValueLimit(9 doubling copies, %d) = %v", limit, err)
	}
	if n := len(got.(map[string]any)["d"].(map[string]any)); n != 10 {
		t.Errorf("after 9 copies d has %d members, want 10", n)
	}
}
