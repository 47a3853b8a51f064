// SPDX-License-Identifier: Apache-2.0

package protobuf

import (
	"strings"
	"testing"
)

// TestProtobufLayoutComplete checks protobuf.json as regenerated: every
// kind and every message a field refers to has a layout, and every field
// kind is one the decoder knows.
func TestProtobufLayoutComplete(t *testing.T) {
	l := layout()
	for kind, msg := range l.kinds {
		if l.messages[msg] == nil {
			t.Errorf("kind %s: message %s has no layout", kind, msg)
		}
	}
	known := map[string]bool{"string": true, "bytes": true, "bool": true, "int32": true, "int64": true, "uint32": true,
		"uint64": true, "double": true, "message": true, "time": true, "microtime": true, "duration": true,
		"quantity": true, "intorstring": true, "raw": true, "fieldsv1": true}
	for name, msg := range l.messages {
		for num, f := range msg.byNum {
			kinds := []string{f.kind}
			ref := f.ref
			if f.kind == "map" {
				parts := strings.Fields(f.ref)
				kinds, ref = parts[:2], ""
				if len(parts) > 2 {
					ref = parts[2]
				}
			}
			for _, k := range kinds {
				if !known[k] {
					t.Errorf("%s field %d (%s): unknown kind %q", name, num, f.json, k)
				}
			}
			if ref != "" && l.messages[ref] == nil {
				t.Errorf("%s field %d (%s): message %s has no layout", name, num, f.json, ref)
			}
		}
	}
}
