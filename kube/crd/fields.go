// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"reflect"
	"sort"
	"strings"

	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// jsonField is one field of a struct as encoding/json sees it: the name
// on the wire, where it sits (through embedded structs), and its options.
type jsonField struct {
	name      string
	declared  string // the Go field, "pkg.Type.Field" of the struct that declares it
	index     []int
	typ       reflect.Type
	tag       reflect.StructTag
	tagged    bool // the json tag gave the name
	omitEmpty bool // omitempty or omitzero: the field may be absent
	asString  bool // the ",string" option: a number or bool encoded as a string
}

// jsonFields lists the fields of struct type t that encoding/json encodes,
// in the order it writes them, with its rules: exported fields only;
// `json:"-"` skipped; embedded structs (and pointers to structs) without
// a name in their tag are inlined; of several fields with one name, the
// least deeply embedded wins, then the tagged one, and when that leaves
// more than one, none is encoded.
func jsonFields(t reflect.Type) []jsonField {
	type level struct {
		typ   reflect.Type
		index []int
	}
	var found []jsonField
	current := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(current) > 0 {
		var next []level
		var atDepth []jsonField
		for _, lv := range current {
			if visited[lv.typ] {
				continue
			}
			visited[lv.typ] = true
			for i := range lv.typ.NumField() {
				sf := lv.typ.Field(i)
				index := append(append([]int(nil), lv.index...), i)
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !jsondec.ValidName(name) {
					name = ""
				}
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, level{typ: ft, index: index})
					continue
				}
				f := jsonField{name: name, declared: lv.typ.String() + "." + sf.Name, index: index, typ: sf.Type, tag: sf.Tag, tagged: name != ""}
				if f.name == "" {
					f.name = sf.Name
				}
				for _, o := range strings.Split(opts, ",") {
					switch o {
					case "omitempty", "omitzero":
						f.omitEmpty = true
					case "string":
						f.asString = isStringable(sf.Type)
					}
				}
				atDepth = append(atDepth, f)
			}
		}
		found = append(found, atDepth...)
		current = next
	}
	return dominantFields(found)
}

// dominantFields applies encoding/json's choice among fields of one name
// and returns the survivors in index order (the order of the encoding).
func dominantFields(all []jsonField) []jsonField {
	byName := map[string][]jsonField{}
	var names []string
	for _, f := range all {
		if _, ok := byName[f.name]; !ok {
			names = append(names, f.name)
		}
		byName[f.name] = append(byName[f.name], f)
	}
	var out []jsonField
	for _, name := range names {
		fs := byName[name]
		depth := len(fs[0].index)
		var shallow []jsonField
		for _, f := range fs {
			if len(f.index) < depth {
				depth, shallow = len(f.index), nil
			}
			if len(f.index) == depth {
				shallow = append(shallow, f)
			}
		}
		if len(shallow) > 1 {
			var tagged []jsonField
			for _, f := range shallow {
				if f.tagged {
					tagged = append(tagged, f)
				}
			}
			shallow = tagged
		}
		if len(shallow) == 1 {
			out = append(out, shallow[0])
		}
	}
	sort.Slice(out, func(i, j int) bool { return lessIndex(out[i].index, out[j].index) })
	return out
}

func lessIndex(a, b []int) bool {
	for k := range min(len(a), len(b)) {
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return len(a) < len(b)
}

// isStringable reports whether the ",string" option applies to t: a
// string, number or bool, or a pointer to one.
func isStringable(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
