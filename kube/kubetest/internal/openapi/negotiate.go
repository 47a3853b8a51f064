// SPDX-License-Identifier: Apache-2.0

package openapi

import (
	"slices"
	"strconv"
	"strings"
)

// This file chooses the form of an OpenAPI document from the Accept
// header as kube-openapi does: the clauses sorted by q (highest first; a
// q of 0 is not a refusal), then concrete types before wildcards, ties
// kept in the header's order; the first clause that matches a served
// form, tried in the order the forms are listed, wins. No Accept is */*.

// form is a media type a document is served in.
type form struct {
	typ, subtype string // as the client asks for it
	contentType  string // as the server names it
}

// Forms of /openapi/v2 and of the /openapi/v3 documents. The protobuf
// forms are asked for with "@v1.0" or ".v1.0" and answered with ".v1.0".
var (
	v2Forms = []form{
		{"application", "json", "application/json"},
		{"application", "com.github.proto-openapi.spec.v2@v1.0+protobuf", v2Protobuf},
		{"application", "com.github.proto-openapi.spec.v2.v1.0+protobuf", v2Protobuf},
	}
	v3Forms = []form{
		{"application", "json", "application/json"},
		{"application", "com.github.proto-openapi.spec.v3@v1.0+protobuf", v3Protobuf},
		{"application", "com.github.proto-openapi.spec.v3.v1.0+protobuf", v3Protobuf},
	}
)

const (
	v2Protobuf = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	v3Protobuf = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
)

// acceptClause is one media range of an Accept header.
type acceptClause struct {
	typ, subtype string
	q            float64
}

// negotiate returns the Content-Type to answer accept with, of forms,
// or "" when none is acceptable (406).
func negotiate(accept string, forms []form) string {
	if strings.TrimSpace(accept) == "" {
		accept = "*/*"
	}
	for _, c := range parseAccept(accept) {
		for _, f := range forms {
			if (c.typ == f.typ || c.typ == "*") && (c.subtype == f.subtype || c.subtype == "*") {
				return f.contentType
			}
		}
	}
	return ""
}

// parseAccept returns the clauses of accept in the order they are tried.
func parseAccept(accept string) []acceptClause {
	var out []acceptClause
	for part := range strings.SplitSeq(accept, ",") {
		params := strings.Split(strings.TrimSpace(part), ";")
		typ, subtype, hasSlash := strings.Cut(params[0], "/")
		c := acceptClause{typ: strings.TrimSpace(typ), subtype: strings.TrimSpace(subtype), q: 1}
		if !hasSlash && c.typ == "*" {
			c.subtype = "*"
		} else if !hasSlash || strings.Contains(subtype, "/") {
			continue
		}
		for _, p := range params[1:] {
			if k, v, ok := strings.Cut(p, "="); ok && strings.TrimSpace(k) == "q" {
				q, _ := strconv.ParseFloat(v, 32)
				c.q = q
			}
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b acceptClause) int {
		switch {
		case a.q != b.q:
			return map[bool]int{true: -1, false: 1}[a.q > b.q]
		case (a.typ == "*") != (b.typ == "*"):
			return map[bool]int{true: 1, false: -1}[a.typ == "*"]
		case (a.subtype == "*") != (b.subtype == "*"):
			return map[bool]int{true: 1, false: -1}[a.subtype == "*"]
		}
		return 0
	})
	return out
}
