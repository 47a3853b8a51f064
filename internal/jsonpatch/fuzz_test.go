// SPDX-License-Identifier: Apache-2.0

package jsonpatch_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
)

// decodeDoc decodes one JSON value as the package does: numbers as
// json.Number, nothing after the value.
func decodeDoc(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// FuzzMerge checks RFC 7386 merge patches: applying a patch twice gives
// what applying it once gives; an object patch leaves an object whose
// members are the patch's (null ones removed, objects merged) over the
// document's; the arguments are not modified; Merge on text agrees with
// MergeValue.
func FuzzMerge(f *testing.F) {
	for _, s := range [][2]string{
		{`{"a":"b"}`, `{"a":"c"}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`},
		{`{"a":"b"}`, `["c"]`},
		{`{"a":"foo"}`, `null`},
		{`{"e":null}`, `{"a":1}`},
		{`[1,2]`, `{"a":"b","c":null}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`},
		{`{"metadata":{"labels":{"a":"1","b":"2"}}}`, `{"metadata":{"labels":{"a":null,"c":"3"},"annotations":{"x":[null]}}}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, db, pb []byte) {
		d, ok1 := decodeDoc(db)
		p, ok2 := decodeDoc(pb)
		if !ok1 || !ok2 {
			return
		}
		d0, p0 := jsonpatch.DeepCopy(d), jsonpatch.DeepCopy(p)
		once := jsonpatch.MergeValue(d, p)
		if !reflect.DeepEqual(d, d0) || !reflect.DeepEqual(p, p0) {
			t.Fatalf("MergeValue(%s, %s) modified its arguments", db, pb)
		}
		twice := jsonpatch.MergeValue(once, p)
		if !jsonpatch.Equal(once, twice) {
			t.Fatalf("merging %s into %s once gives %v, twice %v", pb, db, once, twice)
		}
		checkMerged(t, d, p, once)
		out, err := jsonpatch.Merge(db, pb)
		if err != nil {
			t.Fatalf("Merge(%s, %s) error: %v", db, pb, err)
		}
		if v, ok := decodeDoc(out); !ok || !jsonpatch.Equal(v, once) {
			t.Fatalf("Merge(%s, %s) = %s, MergeValue gives %v", db, pb, out, once)
		}
	})
}

// checkMerged checks RFC 7386's definition member by member.
func checkMerged(t *testing.T, d, p, got any) {
	t.Helper()
	pm, ok := p.(map[string]any)
	if !ok {
		if !jsonpatch.Equal(got, p) {
			t.Fatalf("merge of the non-object patch %v gives %v, want the patch", p, got)
		}
		return
	}
	gm, ok := got.(map[string]any)
	if !ok {
		t.Fatalf("merge of the object patch %v gives %v, not an object", p, got)
	}
	dm, _ := d.(map[string]any)
	for k, pv := range pm {
		gv, has := gm[k]
		switch {
		case pv == nil:
			if has {
				t.Fatalf("merge of %v keeps member %q, which the patch removes", p, k)
			}
		case !has:
			t.Fatalf("merge of %v lacks member %q", p, k)
		default:
			checkMerged(t, dm[k], pv, gv)
		}
	}
	for k, dv := range dm {
		if _, inPatch := pm[k]; !inPatch && !jsonpatch.Equal(gm[k], dv) {
			t.Fatalf("merge of %v changes member %q, which the patch does not name", p, k)
		}
	}
	for k := range gm {
		_, inPatch := pm[k]
		_, inDoc := dm[k]
		if !inPatch && !inDoc {
			t.Fatalf("merge of %v into %v adds member %q from nowhere", p, d, k)
		}
	}
}

// FuzzApply applies arbitrary patches to arbitrary documents. It never
// panics; a failure returns no document, names the operation and wraps
// the package's typed errors where a pointer is at fault; a success
// leaves the document unmodified, agrees with applying the operations one
// at a time, and each operation leaves the value RFC 6902 says at its
// path.
func FuzzApply(f *testing.F) {
	for _, s := range [][2]string{
		{`{"foo":["bar","baz"]}`, `[{"op":"add","path":"/foo/1","value":"qux"}]`},
		{`{"baz":"qux","foo":"bar"}`, `[{"op":"remove","path":"/baz"},{"op":"replace","path":"/foo","value":[1]}]`},
		{`{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`, `[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`},
		{`{"foo":["all","grass","cows","eat"]}`, `[{"op":"move","from":"/foo/1","path":"/foo/3"}]`},
		{`{"baz":"qux","foo":["a",2,"c"]}`, `[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2.0}]`},
		{`{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":"10"}]`},
		{`{"foo":["bar"]}`, `[{"op":"add","path":"/foo/-","value":["abc","def"]},{"op":"copy","from":"/foo","path":"/foo/0"}]`},
		{`{"a":{"b":{}}}`, `[{"op":"move","from":"/a","path":"/a/b/c"}]`},
		{`{"a":1}`, `[{"op":"move","from":"","path":"/b"}]`},
		{`[1,2,3]`, `[{"op":"remove","path":"/01"},{"op":"add","path":"","value":null},{"op":"remove","path":""}]`},
		{`{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux","op":"remove"}]`},
		{`{}`, `[{"op":"add","path":"/a","value":1e400}]`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, db, pb []byte) {
		out, err := jsonpatch.Apply(db, pb)
		d, okDoc := decodeDoc(db)
		ops, perr := jsonpatch.ParseOperations(pb)
		if err != nil {
			if out != nil {
				t.Fatalf("Apply(%s, %s) failed (%v) and returned %s", db, pb, err, out)
			}
			if okDoc && perr == nil {
				checkFailure(t, d, ops, err)
			}
			return
		}
		if !okDoc || perr != nil {
			t.Fatalf("Apply(%s, %s) succeeded though the document decodes %v, the patch parses %v", db, pb, okDoc, perr)
		}
		d0 := jsonpatch.DeepCopy(d)
		all, err := jsonpatch.ApplyValue(d, ops)
		if err != nil {
			t.Fatalf("ApplyValue(%s, %s) error %v, Apply succeeded", db, pb, err)
		}
		if !reflect.DeepEqual(d, d0) {
			t.Fatalf("ApplyValue(%s, %s) modified the document", db, pb)
		}
		if v, ok := decodeDoc(out); !ok || !jsonpatch.Equal(v, all) {
			t.Fatalf("Apply(%s, %s) = %s, ApplyValue gives %v", db, pb, out, all)
		}
		cur := d
		for i, op := range ops {
			next, err := jsonpatch.ApplyValue(cur, ops[i:i+1])
			if err != nil {
				t.Fatalf("operation %d of %s alone fails: %v", i, pb, err)
			}
			checkOperation(t, cur, next, op)
			cur = next
		}
		if !jsonpatch.Equal(cur, all) {
			t.Fatalf("operations of %s one at a time give %v, together %v", pb, cur, all)
		}
	})
}

// checkFailure checks that err names the first operation that fails,
// and that a pointer at fault comes as a *PathError or *TestFailedError
// naming it.
func checkFailure(t *testing.T, d any, ops []jsonpatch.Operation, err error) {
	t.Helper()
	rest, ok := strings.CutPrefix(err.Error(), "apply json patch: operation ")
	n, perr := strconv.Atoi(rest[:max(strings.IndexByte(rest, ':'), 0)])
	if !ok || perr != nil || n < 0 || n >= len(ops) {
		t.Fatalf("ApplyValue error %q names no operation of %d", err, len(ops))
	}
	if _, err := jsonpatch.ApplyValue(d, ops[:n]); err != nil {
		t.Fatalf("ApplyValue error names operation %d, but the ones before fail too: %v", n, err)
	}
	var pe *jsonpatch.PathError
	var te *jsonpatch.TestFailedError
	switch {
	case errors.As(err, &te):
		if ops[n].Op != jsonpatch.OpTest || te.Path != ops[n].Path {
			t.Fatalf("operation %d %+v failed with a TestFailedError for %q", n, ops[n], te.Path)
		}
	case errors.As(err, &pe):
		if pe.Op != ops[n].Op || pe.Path != ops[n].Path && pe.Path != ops[n].From {
			t.Fatalf("operation %d %+v failed with a PathError for %s %q", n, ops[n], pe.Op, pe.Path)
		}
	}
}

// checkOperation checks the value op leaves at its path in after.
func checkOperation(t *testing.T, before, after any, op jsonpatch.Operation) {
	t.Helper()
	var value any
	if op.Value != nil {
		value, _ = decodeDoc(op.Value)
	}
	path := op.Path
	if parent, last := splitPointer(path); op.Op != jsonpatch.OpRemove && last == "-" && path != "" {
		if a, isArray := resolve(after, parent); isArray {
			if arr, _ := a.([]any); len(arr) > 0 {
				path = parent + "/" + strconv.Itoa(len(arr)-1) // "-" appended
			}
		}
	}
	at, ok := resolve(after, path)
	switch op.Op {
	case jsonpatch.OpAdd, jsonpatch.OpReplace:
		if !ok || !jsonpatch.Equal(at, value) {
			t.Fatalf("%s %q %s: the value there is %v (%v)", op.Op, op.Path, op.Value, at, ok)
		}
	case jsonpatch.OpTest:
		if !jsonpatch.Equal(before, after) {
			t.Fatalf("test %q changed the document", op.Path)
		}
	case jsonpatch.OpCopy, jsonpatch.OpMove:
		from, _ := resolve(before, op.From)
		if !ok || !jsonpatch.Equal(at, from) {
			t.Fatalf("%s from %q to %q: the value there is %v, want %v", op.Op, op.From, op.Path, at, from)
		}
	case jsonpatch.OpRemove:
		parent, last := splitPointer(op.Path)
		if m, isObject := resolveObject(after, parent); isObject {
			if _, still := m[last]; still {
				t.Fatalf("remove %q: the member is still there", op.Path)
			}
		}
	}
}

// resolve follows an RFC 6901 pointer, independently of the package.
func resolve(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func resolveObject(doc any, ptr string) (map[string]any, bool) {
	v, ok := resolve(doc, ptr)
	m, isObject := v.(map[string]any)
	return m, ok && isObject
}

// splitPointer splits a pointer into its parent and its last token,
// unescaped.
func splitPointer(ptr string) (string, string) {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return "", ptr
	}
	last := strings.ReplaceAll(strings.ReplaceAll(ptr[i+1:], "~1", "/"), "~0", "~")
	return ptr[:i], last
}
