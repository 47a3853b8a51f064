// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file holds objects as the server sees them: schemaless JSON decoded
// into map[string]any (numbers as int64 or float64: internal/unstructured), encoded
// back in the real server's field order, and the bits of metadata the server generates.

// obj is a decoded object. Every obj is owned by one request: decode makes
// a fresh one from a record's bytes.
type obj = map[string]any

// decodeObject decodes raw into a fresh map.
func decodeObject(raw []byte) (obj, error) {
	o, err := unstructured.DecodeObjectOrNull(raw)
	if err == nil && o == nil {
		err = fmt.Errorf("the body is not a JSON object")
	}
	return o, err
}

// mustDecode decodes bytes the server itself encoded.
func mustDecode(raw []byte) obj {
	o, err := decodeObject(raw)
	if err != nil {
		panic("kubetest: decode stored object: " + err.Error())
	}
	return o
}

// metaRank orders metadata fields as ObjectMeta declares them; unknown
// fields are dropped on write, as the real server drops them.
func metaRank(k string) int {
	switch k {
	case "name":
		return 1
	case "generateName":
		return 2
	case "namespace":
		return 3
	case "selfLink":
		return 4
	case "uid":
		return 5
	case "resourceVersion":
		return 6
	case "generation":
		return 7
	case "creationTimestamp":
		return 8
	case "deletionTimestamp":
		return 9
	case "deletionGracePeriodSeconds":
		return 10
	case "labels":
		return 11
	case "annotations":
		return 12
	case "ownerReferences":
		return 13
	case "finalizers":
		return 14
	case "managedFields":
		return 15
	}
	return 0
}

// encodeObject encodes o as the real server orders it: kind, apiVersion,
// metadata (in ObjectMeta order), then the other fields by name.
func encodeObject(o obj) []byte {
	raw, _ := encodeObjectTM(o)
	return raw
}

// encodeObjectTM is encodeObject that also returns where the type fields
// end: "{" + raw[tm:] is the object without kind and apiVersion, as items
// of built-in lists are served.
func encodeObjectTM(o obj) (raw []byte, tm int) {
	var b bytes.Buffer
	b.Grow(256)
	b.WriteByte('{')
	n := 0
	field := func(k string, v any) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		writeJSONString(&b, k)
		b.WriteByte(':')
		writeJSONValue(&b, v)
	}
	if v, ok := o["kind"]; ok {
		field("kind", v)
	}
	if v, ok := o["apiVersion"]; ok {
		field("apiVersion", v)
	}
	tm = b.Len()
	if m, ok := o["metadata"].(obj); ok {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(`"metadata":`)
		writeMeta(&b, m)
	}
	keys := make([]string, 0, len(o))
	for k := range o {
		if k != "kind" && k != "apiVersion" && k != "metadata" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		field(k, o[k])
	}
	b.WriteByte('}')
	raw = b.Bytes()
	if tm > 1 && tm < len(raw)-1 && raw[tm] == ',' {
		tm++ // skip the comma after apiVersion
	} else {
		tm = 1
	}
	return raw, tm
}

func writeMeta(b *bytes.Buffer, m obj) {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if metaRank(k) > 0 && !unstructured.IsEmpty(v) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y string) int { return metaRank(x) - metaRank(y) })
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, k)
		b.WriteByte(':')
		if list, ok := m[k].([]any); ok && k == "managedFields" {
			writeManagedFields(b, list)
			continue
		}
		writeJSONValue(b, m[k])
	}
	b.WriteByte('}')
}

// writeManagedFields writes the entries with their fields in the real
// server's order.
func writeManagedFields(b *bytes.Buffer, list []any) {
	b.WriteByte('[')
	for i, v := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		e, ok := v.(obj)
		if !ok {
			writeJSONValue(b, v)
			continue
		}
		b.WriteByte('{')
		n := 0
		for _, k := range []string{"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"} {
			if fv, ok := e[k]; ok {
				if n > 0 {
					b.WriteByte(',')
				}
				n++
				writeJSONString(b, k)
				b.WriteByte(':')
				writeJSONValue(b, fv)
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
}

func writeJSONString(b *bytes.Buffer, s string) {
	v, _ := json.Marshal(s)
	b.Write(v)
}

func writeJSONValue(b *bytes.Buffer, v any) {
	raw, err := json.Marshal(v)
	if err != nil { // values come from encoding/json: always encodable
		panic("kubetest: encode value: " + err.Error())
	}
	b.Write(raw)
}

// stringList returns m[k] as a list of strings (finalizers).
func stringList(m obj, k string) []string {
	in, _ := m[k].([]any)
	out := make([]string, 0, len(in))
	for _, v := range in {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// path returns the value at a dotted path of map keys.
func path(o obj, dotted string) (any, bool) {
	var cur any = o
	for p := range strings.SplitSeq(dotted, ".") {
		m, ok := cur.(obj)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// fieldString formats a selectable field as field selectors compare it.
func fieldString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(t, 10)
	case nil:
		return ""
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// formatRV is the wire form of a resourceVersion.
func formatRV(rv uint64) string { return strconv.FormatUint(rv, 10) }

// nowString is the current time with the API's second precision, read from
// time.Now so that a synctest bubble's clock applies.
func nowString() string { return time.Now().UTC().Truncate(time.Second).Format(time.RFC3339) }

// newUID returns a random UUID in version 4 form.
func newUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// generateName appends five random characters to prefix as the real server
// does (names.SimpleNameGenerator), cutting the prefix to keep the name at
// most 63 characters.
func generateName(prefix string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	const maxPrefix = 63 - 5
	if len(prefix) > maxPrefix {
		prefix = prefix[:maxPrefix]
	}
	var b strings.Builder
	b.WriteString(prefix)
	for range 5 {
		b.WriteByte(alphabet[mrand.IntN(len(alphabet))])
	}
	return b.String()
}
