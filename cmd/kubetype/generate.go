// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"go/format"
	"maps"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
)

// This file turns schemas into Go source. It works in two passes: mark
// follows the fields chosen from each kind down through the schemas they
// reference and records, per schema, which of its fields are declared
// (the union over every path that reaches it); source then writes one
// struct per marked schema, in the order they were first reached.

// selection is the fields declared of a schema: all of them, or those
// named, each with the selection below it.
type selection struct {
	all    bool
	fields map[string]*selection
}

var selectAll = &selection{all: true}

// parseSelection makes the selection of paths (spec.replicas); none
// selects everything.
func parseSelection(paths []string) (*selection, error) {
	if len(paths) == 0 {
		return selectAll, nil
	}
	root := &selection{fields: map[string]*selection{}}
	for _, p := range paths {
		sel := root
		for _, name := range strings.Split(p, ".") {
			if name == "" {
				return nil, fmt.Errorf("-fields: %q is not a path of field names joined by dots", p)
			}
			next := sel.fields[name]
			if next == nil {
				next = &selection{fields: map[string]*selection{}}
				sel.fields[name] = next
			}
			sel = next
		}
		sel.all = true // the last name's whole value
	}
	return root, nil
}

// union returns the selection of both a and b (either may be nil).
func union(a, b *selection) *selection {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.all || b.all:
		return selectAll
	}
	out := &selection{fields: maps.Clone(a.fields)}
	for name, s := range b.fields {
		out.fields[name] = union(out.fields[name], s)
	}
	return out
}

// generator gathers the types of the kinds added, and writes them.
type generator struct {
	opts    options
	from    string
	schemas map[string]*schema // by name: every document's, and the inline objects'
	inline  map[*schema]string // the name given each inline object
	sel     map[string]*selection
	order   []string // schema names, in the order first reached
	roots   map[string]kube.GroupVersionKind
	goNames map[string]string // schema name → Go type name
	taken   map[string]bool   // Go type names given
}

func newGenerator(o options, from string) *generator {
	return &generator{opts: o, from: from, schemas: map[string]*schema{}, inline: map[*schema]string{},
		sel: map[string]*selection{}, roots: map[string]kube.GroupVersionKind{},
		goNames: map[string]string{}, taken: map[string]bool{}}
}

// add marks the kind's type and what it declares.
func (g *generator) add(k kind, fields []string) error {
	sel, err := parseSelection(fields)
	if err != nil {
		return err
	}
	maps.Copy(g.schemas, k.doc.schemas)
	if _, dup := g.roots[k.name]; dup {
		return fmt.Errorf("kind %s named twice", k.gvk.Kind)
	}
	g.roots[k.name] = k.gvk
	g.name(k.name, k.gvk.Kind)
	return g.mark(k.name, sel, k.gvk.Kind)
}

// name gives the schema its Go name, once: want, or the qualified name
// when want is taken.
func (g *generator) name(schemaName, want string) string {
	if n, ok := g.goNames[schemaName]; ok {
		return n
	}
	for i := 2; g.taken[want]; i++ {
		want = fmt.Sprintf("%s%d", qualifiedName(schemaName), i-1)
		if i == 2 {
			want = qualifiedName(schemaName)
		}
	}
	g.taken[want] = true
	g.goNames[schemaName] = want
	return want
}

// rootFields are declared by kube.TypeMeta and kube.ObjectMeta.
var rootFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// mark records sel as declared of the schema called name (reached by
// path), and follows each field declared into the schema below it.
func (g *generator) mark(name string, sel *selection, path string) error {
	cur, seen := g.sel[name]
	if !seen {
		g.order = append(g.order, name)
	}
	if seen && cur.all {
		return nil
	}
	sel = union(cur, sel)
	g.sel[name] = sel
	s := g.schemas[name]
	for _, field := range g.fieldsOf(name, sel) {
		p := s.Properties[field]
		if p == nil {
			return fmt.Errorf("-fields: %s.%s: %s has no field %s (it has %s)", path, field,
				g.goNames[name], field, strings.Join(slices.Sorted(maps.Keys(s.Properties)), ", "))
		}
		below := selectAll
		if !sel.all {
			below = sel.fields[field]
		}
		target := g.structOf(p, g.goNames[name], field)
		if target == "" {
			continue // a scalar, or a type of kube's: declared whole
		}
		if err := g.mark(target, below, path+"."+field); err != nil {
			return err
		}
	}
	return nil
}

// fieldsOf returns the fields sel declares of the schema, sorted, without
// those of TypeMeta and ObjectMeta on a kind's own type.
func (g *generator) fieldsOf(name string, sel *selection) []string {
	var names []string
	if sel.all {
		names = slices.Collect(maps.Keys(g.schemas[name].Properties))
	} else {
		names = slices.Collect(maps.Keys(sel.fields))
	}
	_, root := g.roots[name]
	names = slices.DeleteFunc(names, func(f string) bool { return root && rootFields[f] })
	slices.Sort(names)
	return names
}

// structOf returns the name of the schema written as a struct of its own
// that the field holds (itself, or its lists' items, or its maps' values),
// or "" when there is none.
func (g *generator) structOf(p *schema, owner, field string) string {
	if r := p.ref(); r != "" {
		if t := g.schemas[r]; wellKnown[r] == "" && t != nil {
			if t.isStruct() {
				g.name(r, typeName(r))
				return r
			}
			return g.structOf(t, owner, field)
		}
		return ""
	}
	switch {
	case p.isStruct():
		if n, ok := g.inline[p]; ok {
			return n
		}
		n := "inline:" + owner + "." + field
		g.schemas[n], g.inline[p] = p, n
		g.name(n, owner+goField(field))
		return n
	case p.Items != nil:
		return g.structOf(p.Items, owner, field)
	case p.additional() != nil:
		return g.structOf(p.additional(), owner, field)
	}
	return ""
}

// source writes the marked types as formatted Go source.
func (g *generator) source() ([]byte, error) {
	var body strings.Builder
	for _, name := range g.order {
		g.writeStruct(&body, name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by kubetype from %s. DO NOT EDIT.\n//\n", g.from)
	fmt.Fprintf(&b, "// To write it again: kubetype %s\n\n", g.commandLine())
	fmt.Fprintf(&b, "package %s\n\nimport (\n", g.opts.pkg)
	if strings.Contains(body.String(), "json.RawMessage") {
		b.WriteString("\t\"encoding/json\"\n\n")
	}
	b.WriteString("\t\"github.com/kubeloop/kubeloop/kube\"\n)\n\n")
	b.WriteString(body.String())
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("format the generated source (a bug of kubetype's): %w", err)
	}
	return out, nil
}

// commandLine is the arguments that write the same file (the server
// aside, when it is not kubetest).
func (g *generator) commandLine() string {
	args := []string{}
	if g.opts.kubetest {
		args = append(args, "-kubetest")
	}
	if len(g.opts.fields) > 0 {
		args = append(args, "-fields", strings.Join(g.opts.fields, ","))
	}
	if g.opts.pkg != "main" {
		args = append(args, "-package", g.opts.pkg)
	}
	return strings.Join(append(args, g.opts.kinds...), " ")
}

// writeStruct writes the type of the schema called name, and the
// GroupVersionKind method of a kind's type.
func (g *generator) writeStruct(b *strings.Builder, name string) {
	s, goName := g.schemas[name], g.goNames[name]
	desc := s.Description
	if desc == "" {
		desc = goName + " is " + strings.TrimPrefix(name, "inline:") + "."
	}
	comment(b, desc, "")
	fmt.Fprintf(b, "type %s struct {\n", goName)
	gvk, root := g.roots[name]
	if root {
		b.WriteString("\tkube.TypeMeta\n\tkube.ObjectMeta `json:\"metadata\"`\n")
	}
	used := map[string]bool{"TypeMeta": root, "ObjectMeta": root}
	for _, field := range g.fieldsOf(name, g.sel[name]) {
		g.writeField(b, s, goName, field, used)
	}
	b.WriteString("}\n\n")
	if root {
		fmt.Fprintf(b, "// GroupVersionKind states the kind's API identity.\n")
		fmt.Fprintf(b, "func (*%s) GroupVersionKind() kube.GroupVersionKind {\n", goName)
		fmt.Fprintf(b, "\treturn kube.GroupVersionKind{Group: %q, Version: %q, Kind: %q}\n}\n\n", gvk.Group, gvk.Version, gvk.Kind)
	}
}

// writeField writes one field of the struct owner (schema s): its doc,
// its Go type and its tag (see the command's doc for the rules).
func (g *generator) writeField(b *strings.Builder, s *schema, owner, field string, used map[string]bool) {
	p := s.Properties[field]
	goName := goField(field)
	for i := 2; used[goName]; i++ {
		goName = fmt.Sprintf("%s%d", goField(field), i)
	}
	used[goName] = true
	expr, k := g.typeExpr(p, owner, field)
	tag := field
	if !s.requires(field) {
		switch {
		case k == kindScalar, k == kindStruct && !p.defaultsEmpty():
			expr, tag = "*"+expr, tag+",omitempty"
		case k == kindStruct:
			tag += ",omitzero"
		default:
			tag += ",omitempty"
		}
	}
	if p.Description != "" {
		comment(b, p.Description, "\t")
	}
	fmt.Fprintf(b, "\t%s %s `json:%q`\n", goName, expr, tag)
}

// typeExpr returns the Go type of a value of schema p, held in field of
// the struct owner.
func (g *generator) typeExpr(p *schema, owner, field string) (string, goKind) {
	if r := p.ref(); r != "" {
		if expr := wellKnown[r]; expr != "" {
			return expr, wellKnownKind(expr)
		}
		t := g.schemas[r]
		switch {
		case t == nil:
			return "json.RawMessage", kindList
		case t.isStruct():
			return g.goNames[r], kindStruct
		}
		return g.typeExpr(t, owner, field)
	}
	switch {
	case p.IntOrString:
		return "kube.IntOrString", kindStruct
	case p.isStruct():
		return g.goNames[g.inline[p]], kindStruct
	}
	return g.plainExpr(p, owner, field)
}

// plainExpr is typeExpr for a schema that is neither a reference nor an
// object with fields.
func (g *generator) plainExpr(p *schema, owner, field string) (string, goKind) {
	switch p.Type {
	case "string":
		switch p.Format {
		case "byte":
			return "[]byte", kindString
		case "date-time":
			return "kube.Time", kindStruct
		case "int-or-string":
			return "kube.IntOrString", kindStruct
		}
		return "string", kindString
	case "integer":
		if p.Format == "int32" {
			return "int32", kindScalar
		}
		return "int64", kindScalar
	case "number":
		return "float64", kindScalar
	case "boolean":
		return "bool", kindScalar
	case "array":
		if p.Items == nil {
			return "[]json.RawMessage", kindList
		}
		elem, _ := g.typeExpr(p.Items, owner, field)
		return "[]" + elem, kindList
	}
	if a := p.additional(); a != nil && (a.Type != "" || a.ref() != "" || a.isStruct()) {
		elem, _ := g.typeExpr(a, owner, field)
		return "map[string]" + elem, kindList
	}
	return "json.RawMessage", kindList // free-form: any value, kept as sent
}
