// SPDX-License-Identifier: Apache-2.0

package jsonpatch

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
)

// Hash returns a hash of v that agrees with [Equal]: Equal(a, b) implies
// Hash(seed, a) == Hash(seed, b) for the same seed. It finds the values
// equal to one among many in O(size) instead of comparing every pair;
// values with equal hashes are candidates, to be confirmed with Equal.
// Numbers hash by value (float64 1, json.Number "1.0" and int 1 hash
// alike), members of objects in any order. A random seed
// (maphash.MakeSeed) keeps collisions out of an adversary's reach. The
// cost is O(size of v).
func Hash(seed maphash.Seed, v any) uint64 {
	switch x := v.(type) {
	case nil:
		return mix(seed, tagNull, 0)
	case bool:
		if x {
			return mix(seed, tagTrue, 0)
		}
		return mix(seed, tagFalse, 0)
	case string:
		return mix(seed, tagString, maphash.String(seed, x))
	case map[string]any:
		// The members' hashes are summed, which does not depend on
		// their order.
		var sum uint64
		for k, e := range x {
			sum += mix(seed, maphash.String(seed, k), Hash(seed, e))
		}
		return mix(seed, tagObject, mix(seed, uint64(len(x)), sum))
	case []any:
		h := mix(seed, tagArray, uint64(len(x)))
		for _, e := range x {
			h = mix(seed, h, Hash(seed, e))
		}
		return h
	}
	text, ok := numberText(v)
	if !ok {
		// Equal compares these with reflect.DeepEqual, which needs the
		// same dynamic type.
		return mix(seed, tagOther, maphash.String(seed, fmt.Sprintf("%T", v)))
	}
	neg, digits, exp, ok := decimal(text)
	if !ok {
		return mix(seed, tagText, maphash.String(seed, text))
	}
	tag := uint64(tagNumber)
	if neg {
		tag = tagNegative
	}
	return mix(seed, tag, mix(seed, maphash.String(seed, digits), uint64(exp)))
}

// mix hashes two words into one.
func mix(seed maphash.Seed, a, b uint64) uint64 {
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], a)
	binary.LittleEndian.PutUint64(buf[8:], b)
	return maphash.Bytes(seed, buf[:])
}

// Type tags, hashed with each value so that values of different JSON
// types do not hash alike.
const (
	tagNull = iota
	tagFalse
	tagTrue
	tagString
	tagNumber
	tagNegative // a number below zero
	tagText     // a json.Number that is not a decimal number: compared as text
	tagObject
	tagArray
	tagOther // a non-generic Go value: compared with reflect.DeepEqual
)
