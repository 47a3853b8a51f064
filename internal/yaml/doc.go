// SPDX-License-Identifier: Apache-2.0

// Package yaml reads the subset of YAML that kubeconfig files use, and JSON.
// It exists so that package kube can load kubeconfigs without a dependency;
// it is not a general YAML library and never writes YAML.
//
// Guarantees:
//   - Never panics, whatever the input, and never recurses deeper than
//     [MaxDepth] levels of nesting (deeper input is an error).
//   - Every error is a [*SyntaxError] that names the line (and the column
//     where it is known) and says what was expected or what is not supported.
//   - Values are untyped: a scalar is a string whatever it looks like
//     ("true", "8443" and "1.5" stay strings); only an unquoted empty value,
//     "~" and "null" become null. [Node.Quoted] tells the caller whether a
//     scalar was quoted, so "true" and true can be told apart if needed.
//   - Cost is linear in the size of the input, and the result holds a copy
//     of the text it needs: the caller may reuse the input slice.
//
// Supported: block mappings and block sequences, including the compact
// "- key: value" form and a sequence written at the same indentation as the
// key that holds it (as kubectl writes them); plain, single-quoted and
// double-quoted scalars with all YAML escapes, over several lines when they
// fold; comments; an optional "---" document start and "..." document end;
// flow collections that fit on one line ("{}", "[]", "[a, b]", "{a: 1}").
// A document whose first non-space byte is '{' or '[' is read as JSON first.
//
// Not supported, each failing with an error that says so: block scalars
// (| and >), anchors (&), aliases (*), tags (!), directives (%), complex
// keys (?), more than one document, duplicate keys, tabs in indentation and
// flow collections that span lines.
//
// Usage:
//  1. Call [Parse] for plain Go values (map[string]any, []any, string, nil),
//     or [ParseNode] for a [*Node] tree that keeps line numbers, so a caller
//     can say "line 7: expected a mapping".
//  2. Walk the tree with [Node.Get] and the Kind, Text, Entries and Items
//     fields.
package yaml
