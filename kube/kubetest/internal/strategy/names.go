// SPDX-License-Identifier: Apache-2.0

package strategy

import (
	"crypto/rand"
	"encoding/hex"
	mrand "math/rand/v2"
	"strings"
)

// NewUID returns a random UUID in version 4 form.
func NewUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// GenerateName appends five random characters to prefix as the real server
// does (names.SimpleNameGenerator), cutting the prefix to keep the name at
// most 63 characters.
func GenerateName(prefix string) string {
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
