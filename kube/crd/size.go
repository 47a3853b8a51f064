// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// This file bounds the size of a CRD. A CRD schema has no references, so
// each use of a struct type writes its whole schema out again: a graph of
// shared types without recursion (A holds two B, B two C, ... eighteen
// levels down) is a tree of 2^18 leaves, tens of megabytes of JSON that
// the server refuses to store. The walker counts the bytes of what it
// writes as it goes and stops once they pass what the server stores, so
// such a type fails fast, after writing out about that much and no more.

// maxCRDBytes is the most JSON of a CRD [For] returns. kube-apiserver
// stores a CRD as the JSON it was sent plus its metadata and status
// (about 1.5 kB), and etcd refuses a write above 1.5 MiB, its default.
// Measured on kube-apiserver 1.36.3 with etcd 3.6: a CRD of 1,568,557
// bytes was created and established; 1,578,148 bytes failed with 500
// "etcdserver: request is too large"; 2,970,788 with 500 "trying to send
// message larger than max" (the etcd client's 2 MiB); 3,175,588 with 413
// (the 3 MiB request limit).
const maxCRDBytes = 3 << 19 // 1.5 MiB

// setProperty sets s.Properties[name] and counts the bytes of JSON it
// adds: `"name":{"type":"T"}` with its format, description and pattern,
// a comma, and `"properties":{}` for the first. The rest of the
// property's schema is not counted, nor the items of arrays and maps, so
// the count is a lower bound; its properties were counted when they were
// set.
func (w *walker) setProperty(s *Schema, name string, prop Schema) {
	if s.Properties == nil {
		s.Properties = map[string]Schema{}
		w.size += len(`,"properties":{}`)
	} else {
		w.size += len(",")
	}
	w.size += len(`"":{}`) + len(name)
	own := 0
	for _, kv := range [...]struct{ key, v string }{{`"type":""`, prop.Type}, {`"format":""`, prop.Format},
		{`"description":""`, prop.Description}, {`"pattern":""`, prop.Pattern}} {
		if kv.v != "" {
			if own > 0 {
				own += len(",")
			}
			own += len(kv.key) + len(kv.v)
		}
	}
	w.size += own
	s.Properties[name] = prop
}

// require adds name to s.Required and counts the bytes of JSON it adds.
func (w *walker) require(s *Schema, name string) {
	if len(s.Required) == 0 {
		w.size += len(`,"required":[]`)
	} else {
		w.size += len(",")
	}
	w.size += len(`""`) + len(name)
	s.Required = append(s.Required, name)
}

// countWritten counts one more writing out of struct type t.
func (w *walker) countWritten(t reflect.Type) {
	if w.written == nil {
		w.written = map[reflect.Type]int{}
	}
	w.written[t]++
}

// tooLarge is the error of a schema that passed maxCRDBytes at p: it
// names the struct types written out most often.
func (w *walker) tooLarge(p place) error {
	types := slices.SortedFunc(maps.Keys(w.written), func(a, b reflect.Type) int {
		return cmp.Or(w.written[b]-w.written[a], strings.Compare(a.String(), b.String()))
	})
	var most []string
	for _, t := range types[:min(3, len(types))] {
		if w.written[t] > 1 {
			most = append(most, fmt.Sprintf("%s %d times", t, w.written[t]))
		}
	}
	msg := fmt.Sprintf("the schema passes %d bytes of JSON, more than kube-apiserver stores", maxCRDBytes)
	if len(most) == 0 {
		return errorf(p, "%s", msg)
	}
	return errorf(p, "%s: a CRD schema has no references, so each use of a struct type writes its schema out again, "+
		`and so far it wrote out %s; tag the fields of a type used that often crd:"schemaless", or use it less`,
		msg, strings.Join(most, ", "))
}
