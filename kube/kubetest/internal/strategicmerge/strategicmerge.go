// SPDX-License-Identifier: Apache-2.0

package strategicmerge

import (
	"net/http"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// obj is a decoded JSON object.
type obj = map[string]any

// Directive keys and their values.
const (
	smpDirective        = "$patch"
	smpRetainKeys       = "$retainKeys"
	smpSetElementOrder  = "$setElementOrder"
	smpDeleteFromList   = "$deleteFromPrimitiveList"
	smpDirectiveDelete  = "delete"
	smpDirectiveReplace = "replace"
	smpDirectiveMerge   = "merge"
	smpStrategyRetain   = "retainKeys"
)

// Merge applies patch to cur by s, the schema of cur's kind.
// Both are consumed: the result shares maps with them. quoted is the patch
// as the merge left it, formatted as the real server quotes it.
func Merge(s *schema.Schema, cur, patch obj) (out obj, quoted string, err *Error) {
	defer func() {
		if r := recover(); r != nil {
			p, ok := r.(smpPanic)
			if !ok {
				panic(r)
			}
			out, err = nil, smpFailed("%s", p.msg)
		}
	}()
	out, err = mergeObjects(s, cur, patch)
	if err != nil {
		return nil, "", err
	}
	quoted = schema.GoValueString(patch)
	settle(s, out)
	return out, quoted, nil
}

// mergeObjects merges patch into cur, an object of schema s (nil: no
// schema), and returns the merged object.
func mergeObjects(s *schema.Schema, cur, patch obj) (obj, *Error) {
	if d, ok := patch[smpDirective]; ok {
		switch d {
		case smpDirectiveReplace:
			delete(patch, smpDirective)
			return patch, nil
		case smpDirectiveDelete:
			return obj{}, nil
		}
		return nil, unknownDirective(d, patch)
	}
	if cur == nil {
		cur = obj{}
	}
	if err := retainKeys(cur, patch); err != nil {
		return nil, err
	}
	if err := orderLists(s, cur, patch); err != nil {
		return nil, err
	}
	for _, k := range unstructured.SortedKeys(patch) {
		if err := mergeField(s, cur, patch, k); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

// mergeField merges the patch's key k into cur.
func mergeField(s *schema.Schema, cur, patch obj, k string) *Error {
	pv := patch[k]
	name, deleting := k, false
	if strings.HasPrefix(k, smpDeleteFromList) {
		target, err := directiveTarget(k, smpDeleteFromList)
		if err != nil {
			return err
		}
		name, deleting = target, true
	}
	if pv == nil {
		delete(cur, name)
		return nil
	}
	cv, present := cur[name]
	if !present || isAbsent(cv) {
		if !deleting {
			setFromPatch(cur, name, pv)
		}
		return nil
	}
	if schema.UnstructuredKind(cv) != schema.UnstructuredKind(pv) {
		if !deleting {
			setFromPatch(cur, name, pv)
		}
		return nil
	}
	switch c := cv.(type) {
	case obj:
		field, strategy, _, err := lookupPatchField(s, name, false)
		if err != nil {
			return err
		}
		merged := pv.(obj)
		if strategy != smpDirectiveReplace {
			if merged, err = mergeObjects(field, c, merged); err != nil {
				return err
			}
		}
		cur[name] = merged
	case []any:
		item, strategy, mergeKey, err := lookupPatchField(s, name, true)
		if err != nil {
			return err
		}
		merged := pv.([]any)
		if strategy == smpDirectiveMerge || deleting {
			if merged, err = smpMergeLists(item, c, merged, mergeKey, deleting); err != nil {
				return err
			}
		}
		cur[name] = merged
	default:
		cur[name] = pv // scalars of one type, even for a $deleteFromPrimitiveList
	}
	return nil
}

// isAbsent says a value of the current object counts as missing: the real
// server's object is a Go struct, whose omitempty leaves out nil and
// empty lists.
func isAbsent(v any) bool {
	l, isList := v.([]any)
	return v == nil || (isList && len(l) == 0)
}

// setFromPatch sets cur[name] to a value of the patch that the object
// lacks (or has with another type): without its nulls and directives.
func setFromPatch(cur obj, name string, pv any) {
	dropPatchNulls(pv)
	if v, keep := withoutDirectives(pv); keep {
		cur[name] = v
	} else {
		delete(cur, name)
	}
}

// lookupPatchField finds the field name of the struct s and its patch
// strategy ("merge", "replace" or "") and merge key. For a list (list
// set) it returns the schema of its items, else the field's. It fails as
// the real server's lookup in Go types does: s must be a struct with that
// field (matched case-insensitively if need be), and a list a slice.
func lookupPatchField(s *schema.Schema, name string, list bool) (*schema.Schema, string, string, *Error) {
	if s == nil {
		return nil, "", "", nil
	}
	if len(s.Properties) == 0 && s.Additional != nil {
		return nil, "", "", smpFailed("merging an object in json but data type is not struct, instead is: map")
	}
	f, ok := s.Properties[name]
	for i := 0; !ok && i < len(s.Names); i++ {
		// Go's JSON field matching ignores case when no name is exact.
		f, ok = s.Properties[s.Names[i]], strings.EqualFold(s.Names[i], name)
	}
	if !ok {
		return nil, "", "", smpFailed("unable to find api field in struct %s for the json field %q", schema.GoStructName(s), name)
	}
	strategy, err := patchStrategy(f.PatchStrategy)
	if err != nil {
		return nil, "", "", err
	}
	if !list {
		return f, strategy, f.PatchMergeKey, nil
	}
	if f.Type != "array" {
		return nil, "", "", smpFailed("expected slice or array type, but got: struct")
	}
	return f.Elem, strategy, f.PatchMergeKey, nil
}

// patchStrategy is the strategy a merge follows for a field tagged tag:
// retainKeys only says which clients send $retainKeys.
func patchStrategy(tag string) (string, *Error) {
	parts := strings.Split(tag, ",")
	switch {
	case len(parts) == 1 && parts[0] == smpStrategyRetain:
		return "", nil
	case len(parts) == 1:
		return parts[0], nil
	case len(parts) == 2 && parts[0] == smpStrategyRetain:
		return parts[1], nil
	case len(parts) == 2 && parts[1] == smpStrategyRetain:
		return parts[0], nil
	}
	return "", smpFailed("unexpected patch strategy: %v", parts)
}

// retainKeys applies a $retainKeys directive of patch: every key of the
// patch (but nulls and list directives) must be listed, and cur keeps the
// listed keys only.
func retainKeys(cur, patch obj) *Error {
	v, ok := patch[smpRetainKeys]
	if !ok {
		return nil
	}
	delete(patch, smpRetainKeys)
	bad := &Error{Code: http.StatusBadRequest, Msg: "invalid patch format of retainKeys"}
	list, ok := v.([]any)
	if !ok {
		return bad
	}
	keep := make(map[any]bool, len(list))
	for _, k := range list {
		keep[hashable(k)] = true
	}
	for k, x := range patch {
		if x != nil && !strings.HasPrefix(k, smpDeleteFromList) && !strings.HasPrefix(k, smpSetElementOrder) && !keep[k] {
			return bad
		}
	}
	for k := range cur {
		if !keep[k] {
			delete(cur, k)
		}
	}
	return nil
}

// directiveTarget is the list a directive key names: "containers" for
// "$setElementOrder/containers". A key with another prefix than the
// directive's is a 400.
func directiveTarget(key, prefix string) (string, *Error) {
	directive, target, ok := strings.Cut(key, "/")
	if ok && directive == prefix {
		return target, nil
	}
	what := "primitive list"
	if prefix == smpSetElementOrder {
		what = "setElementOrder list"
	}
	return "", &Error{Code: http.StatusBadRequest, Msg: "invalid patch format of " + what}
}

// withoutDirectives removes from x the objects that carry a $patch
// directive (keep is false when x is one); objects are changed in place,
// lists are copied.
func withoutDirectives(x any) (v any, keep bool) {
	switch t := x.(type) {
	case obj:
		if _, ok := t[smpDirective]; ok {
			return nil, false
		}
		for k, e := range t {
			if e2, keep := withoutDirectives(e); keep {
				t[k] = e2
			} else {
				delete(t, k)
			}
		}
	case []any:
		out := make([]any, 0, len(t))
		for _, e := range t {
			if e2, keep := withoutDirectives(e); keep {
				out = append(out, e2)
			}
		}
		return out, true
	}
	return x, true
}

// dropNulls removes the null fields of the objects in x (a patch value the
// object lacks: its nulls have nothing to delete).
func dropPatchNulls(x any) {
	switch t := x.(type) {
	case obj:
		for k, e := range t {
			if e == nil {
				delete(t, k)
			} else {
				dropPatchNulls(e)
			}
		}
	case []any:
		for _, e := range t {
			dropPatchNulls(e)
		}
	}
}
