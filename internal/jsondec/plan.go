// SPDX-License-Identifier: Apache-2.0

package jsondec

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// kind is how a plan decodes.
type kind uint8

const (
	kBool kind = iota
	kString
	kInt
	kUint
	kFloat
	kAny         // an empty interface: map[string]any, []any, ...
	kPointer     // elem decodes what the pointer points at
	kSlice       // elem decodes each element
	kBytes       // a slice of bytes: base64 from a string, elements from an array
	kArray       // elem decodes each element
	kMap         // string keys; elem decodes each value
	kStruct      // fields
	kUnmarshaler // the type's own UnmarshalJSON
	kText        // the type's own UnmarshalText, for a string
	kNumber      // json.Number: a number's text
	kIface       // a non-empty interface: only what a pointer in it points at
	kNone        // no JSON value but null fits (a func, a map with struct keys)
	kFallback    // Options.Fallback, for the value alone
)

// keyKind is how a map's keys are decoded.
type keyKind uint8

const (
	keyString keyKind = iota
	keyInt
	keyUint
	keyText // the key type's UnmarshalText
)

// plan says how to decode JSON into one Go type. Plans are built once per
// type and never change after; they may refer to themselves.
type plan struct {
	kind kind
	typ  reflect.Type
	// elem is the plan of the element (kPointer, kSlice, kBytes, kArray,
	// kMap).
	elem *plan
	// key says how a map's keys are decoded (kMap).
	key keyKind
	// fields are the struct's fields (kStruct) in the order of their
	// indexes, as encoding/json finds them (embedded structs' promoted).
	fields []field
}

// field is a struct field as JSON names it.
type field struct {
	name   string // the key that names it, matched exactly
	index  []int  // reflect's index path, through embedded structs
	plan   *plan
	intern bool // intern its strings (see Options.InternField)
	skip   bool // skip its value (see Options.SkipField)
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
)

// plan returns the plan of t, building it on first use.
func (d *Decoder) plan(t reflect.Type) *plan {
	if p, ok := d.plans.Load(t); ok {
		return p.(*plan)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	b := map[reflect.Type]*plan{}
	p := d.build(t, b)
	for t, p := range b {
		d.plans.LoadOrStore(t, p)
	}
	return p
}

// build makes the plan of t; building holds the plans made by this call.
func (d *Decoder) build(t reflect.Type, building map[reflect.Type]*plan) *plan {
	if p, ok := d.plans.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &plan{typ: t}
	building[t] = p
	pt := reflect.PointerTo(t)
	switch k := t.Kind(); {
	case t.Name() != "" && k != reflect.Pointer && pt.Implements(unmarshalerType):
		p.kind = kUnmarshaler
	case t.Name() != "" && k != reflect.Pointer && pt.Implements(textUnmarshalerType):
		p.kind = kText
	case t == numberType:
		p.kind = kNumber
	case k == reflect.Bool:
		p.kind = kBool
	case k == reflect.String:
		p.kind = kString
	case k >= reflect.Int && k <= reflect.Int64:
		p.kind = kInt
	case k >= reflect.Uint && k <= reflect.Uintptr:
		p.kind = kUint
	case k == reflect.Float32 || k == reflect.Float64:
		p.kind = kFloat
	case k == reflect.Interface && t.NumMethod() == 0:
		p.kind = kAny
	case k == reflect.Interface:
		p.kind = kIface
	case k == reflect.Pointer:
		p.kind, p.elem = kPointer, d.build(t.Elem(), building)
	case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		p.kind, p.elem = kBytes, d.build(t.Elem(), building)
	case k == reflect.Slice:
		p.kind, p.elem = kSlice, d.build(t.Elem(), building)
	case k == reflect.Array:
		p.kind, p.elem = kArray, d.build(t.Elem(), building)
	case k == reflect.Map:
		p.kind, p.elem = kMap, d.build(t.Elem(), building)
		switch kt, kk := t.Key(), t.Key().Kind(); {
		case reflect.PointerTo(kt).Implements(textUnmarshalerType):
			p.key = keyText
			if reflect.PointerTo(kt).Implements(unmarshalerType) {
				p.kind = kFallback // encoding/json hands it the quoted key
			}
		case kk == reflect.String:
			p.key = keyString
		case kk >= reflect.Int && kk <= reflect.Int64:
			p.key = keyInt
		case kk >= reflect.Uint && kk <= reflect.Uintptr:
			p.key = keyUint
		default:
			p.kind = kNone
		}
	case k == reflect.Struct:
		p.kind = kStruct
		if !d.structFields(p, building) {
			p.kind, p.fields = kFallback, nil
		}
	default: // funcs, channels, complex numbers, unsafe pointers
		p.kind = kNone
	}
	return p
}

// structFields fills p.fields with the fields encoding/json decodes into
// (its rules: exported fields and embedded structs, tags, and among fields
// of one name the shallowest, or the tagged one at that depth). It
// reports false when a field has the ",string" option, which p leaves to
// encoding/json.
func (d *Decoder) structFields(p *plan, building map[reflect.Type]*plan) bool {
	all, ok := d.candidates(p, building)
	if !ok {
		return false
	}
	for _, f := range dominant(all) {
		// Insert in the order of the indexes, as encoding/json keeps
		// them.
		j := len(p.fields)
		p.fields = append(p.fields, f)
		for ; j > 0 && lessIndex(f.index, p.fields[j-1].index); j-- {
			p.fields[j] = p.fields[j-1]
		}
		p.fields[j] = f
	}
	return true
}

// candidate is a field found in p's struct or the structs it embeds: a
// field of its own (its plan built), or an embedded struct to walk.
type candidate struct {
	field
	typ    reflect.Type
	tagged bool
}

// fieldRole is what a struct field is to the decoding.
type fieldRole uint8

const (
	roleSkipped  fieldRole = iota // unexported, or tagged "-"
	roleField                     // decoded under its name
	roleEmbedded                  // an untagged embedded struct: its fields are promoted
	roleRefused                   // a ",string" option on a quotable kind: the plan falls back
)

// candidates walks p's struct breadth first, one depth of embedding at a
// time, and answers its fields in order of depth, each field of a struct
// embedded twice at one depth twice (so that neither wins). ok is false
// when a field makes the whole struct fall back.
func (d *Decoder) candidates(p *plan, building map[reflect.Type]*plan) (all []candidate, ok bool) {
	level := []candidate{{typ: p.typ}}
	visited := map[reflect.Type]bool{}
	for len(level) > 0 {
		var next []candidate
		count, nextCount := map[reflect.Type]int{}, map[reflect.Type]int{}
		for _, f := range level {
			count[f.typ]++
		}
		for _, f := range level {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := range f.typ.NumField() {
				c, role := d.classify(p, f, i, building)
				switch role {
				case roleRefused:
					return nil, false
				case roleEmbedded:
					nextCount[c.typ]++
					if nextCount[c.typ] == 1 {
						next = append(next, c)
					}
				case roleField:
					all = append(all, c)
					if count[f.typ] > 1 { // a duplicate, so that both go
						all = append(all, c)
					}
				}
			}
		}
		level = next
	}
	return all, true
}

// classify says what field i of in's struct, and for a roleField builds
// its plan and applies the decoder's InternField and SkipField.
func (d *Decoder) classify(p *plan, in candidate, i int, building map[reflect.Type]*plan) (candidate, fieldRole) {
	sf := in.typ.Field(i)
	ft := sf.Type
	if ft.Name() == "" && ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	if sf.Anonymous && !sf.IsExported() && ft.Kind() != reflect.Struct || !sf.Anonymous && !sf.IsExported() {
		return candidate{}, roleSkipped
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return candidate{}, roleSkipped
	}
	name, opts, _ := strings.Cut(tag, ",")
	if !ValidName(name) {
		name = ""
	}
	index := append(slices.Clip(in.index), i)
	if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
		return candidate{field: field{name: ft.Name(), index: index}, typ: ft}, roleEmbedded
	}
	if hasOpt(opts, "string") && quotable(ft.Kind()) {
		return candidate{}, roleRefused
	}
	nf := candidate{field: field{name: name, index: index}, typ: ft, tagged: name != ""}
	if name == "" {
		nf.name = sf.Name
	}
	nf.plan = d.build(sf.Type, building)
	if d.opts.InternField != nil && d.opts.Intern != nil {
		nf.intern = d.opts.InternField(p.typ, nf.name)
	}
	if d.opts.SkipField != nil {
		nf.skip = d.opts.SkipField(p.typ, nf.name)
	}
	return nf, roleField
}

// dominant keeps, among the candidates of one name, the dominant one:
// the shallowest (all is in order of depth), and at that depth the only
// one, or the only tagged one. It answers them in the order of all.
func dominant(all []candidate) []field {
	type best struct {
		at     int // index in all
		depth  int
		tagged int // fields tagged at that depth
		count  int // fields at that depth
	}
	byName := map[string]*best{}
	for i, f := range all {
		b := byName[f.name]
		switch {
		case b == nil:
			byName[f.name] = &best{at: i, depth: len(f.index), tagged: btoi(f.tagged), count: 1}
		case len(f.index) == b.depth:
			b.count++
			b.tagged += btoi(f.tagged)
			if f.tagged && !all[b.at].tagged {
				b.at = i
			}
		}
	}
	var out []field
	for i, f := range all {
		if b := byName[f.name]; b.at == i && (b.count == 1 || b.tagged == 1) {
			out = append(out, f.field)
		}
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lessIndex orders index paths as the fields they lead to are declared.
func lessIndex(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// quotable reports whether the ",string" option applies to a field of kind k.
func quotable(k reflect.Kind) bool {
	return k == reflect.Bool || k == reflect.String || k >= reflect.Int && k <= reflect.Uintptr || k == reflect.Float32 || k == reflect.Float64
}

func hasOpt(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// ValidName reports whether name, from a json tag, names the member as
// encoding/json decides: a tag whose name it refuses is ignored, and the
// Go field's name used. kube/crd, which names a schema's properties
// after the same tags, asks it too.
func ValidName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// Field is a struct field as encoding/json names it.
type Field struct {
	Name string
	Type reflect.Type
}

// Fields returns the fields of struct type t that encoding/json encodes
// and decodes (the rules of structFields), in the order of their
// indexes, and false when t is not a struct a plan serves (a ",string"
// field makes it one). It builds t's plan on first use, as Unmarshal
// does.
func (d *Decoder) Fields(t reflect.Type) ([]Field, bool) {
	p := d.plan(t)
	if p.kind != kStruct {
		return nil, false
	}
	out := make([]Field, len(p.fields))
	for i, f := range p.fields {
		out[i] = Field{Name: f.name, Type: f.plan.typ}
	}
	return out, true
}
