// SPDX-License-Identifier: Apache-2.0

package openapi

import (
	"bytes"
	"testing"
)

// TestCacheBuildsOncePerState: documents asked again for the same state
// are not built again; a new state builds them anew, and the copies of a
// Doc share one protobuf encoding.
func TestCacheBuildsOncePerState(t *testing.T) {
	var c Cache
	builds := 0
	build := func(title string) func() Doc {
		return func() Doc {
			builds++
			return NewDoc(map[string]any{"swagger": "2.0", "info": map[string]any{"title": title, "version": "v1"}})
		}
	}
	a := c.V2("a", build("one"))
	if again := c.V2("a", build("two")); builds != 1 || !bytes.Equal(again.Body, a.Body) {
		t.Fatalf("same state asked twice: %d builds, body %s; want 1 build and the first body", builds, again.Body)
	}
	b := c.V2("b", build("two"))
	if builds != 2 || bytes.Equal(b.Body, a.Body) || b.Hash == a.Hash {
		t.Fatalf("a new state: %d builds, body %s; want 2 builds and the new body", builds, b.Body)
	}
	if p, q := b.protobuf(false), c.V2("b", build("three")).protobuf(false); len(p) == 0 || &p[0] != &q[0] {
		t.Errorf("the protobuf of one cached Doc was encoded twice (or is empty: %d bytes)", len(p))
	}
	v3builds := 0
	docs := func() map[string]Doc {
		v3builds++
		return map[string]Doc{"api/v1": NewDoc(map[string]any{"openapi": "3.0.0"})}
	}
	c.V3("a", docs)
	c.V3("a", docs)
	c.V3("b", docs)
	if v3builds != 2 {
		t.Errorf("v3 documents built %d times for states a, a, b; want 2", v3builds)
	}
}
