// SPDX-License-Identifier: Apache-2.0

package satoken

import (
	"strings"
	"testing"
	"time"
)

// TestVerify reads back what Sign wrote, and refuses a token of another
// key, a tampered one, one not yet valid and one expired.
func TestVerify(t *testing.T) {
	key, other := []byte("0123456789abcdef0123456789abcdef"), []byte("another key, another server....")
	now := time.Unix(1_800_000_000, 0)
	c := Claims{Namespace: "ns", Name: "robot", UID: "u1", Audiences: []string{Issuer}, IssuedAt: now.Unix(), Expiry: now.Unix() + 600, ID: "j"}
	token := Sign(key, c)
	if got, ok := Verify(key, token, now); !ok || got.Name != "robot" || got.Namespace != "ns" || got.UID != "u1" || got.Expiry != c.Expiry {
		t.Errorf("Verify = %+v, %v; want the claims signed", got, ok)
	}
	parts := strings.Split(token, ".")
	tampered := parts[0] + "." + parts[1] + "x." + parts[2]
	for what, tc := range map[string]struct {
		key   []byte
		token string
		at    time.Time
	}{
		"another key":   {other, token, now},
		"tampered":      {key, tampered, now},
		"before issue":  {key, token, now.Add(-time.Second)},
		"at expiry":     {key, token, now.Add(600 * time.Second)},
		"not a token":   {key, "abc", now},
		"empty payload": {key, parts[0] + ".." + parts[2], now},
	} {
		if _, ok := Verify(tc.key, tc.token, tc.at); ok {
			t.Errorf("Verify of a token %s = ok, want refused", what)
		}
	}
}

// TestRequestDefaultsAndRefusals checks the defaults of a TokenRequest
// and the real server's refusals.
func TestRequestDefaultsAndRefusals(t *testing.T) {
	sa := Account{Namespace: "ns", Name: "robot", UID: "u1"}
	now := time.Unix(1_800_000_000, 0)
	answer, c, refused := Request(map[string]any{}, sa, now, "m", "j")
	spec, _ := answer["spec"].(map[string]any)
	if refused != nil || spec["expirationSeconds"] != int64(3600) || c.Expiry != now.Unix()+3600 || len(c.Audiences) != 1 {
		t.Errorf("Request({}) = %v, %+v, %v; want an hour for the API server's audience", answer, c, refused)
	}
	for _, body := range []map[string]any{
		{"spec": map[string]any{"expirationSeconds": int64(599)}},
		{"spec": map[string]any{"expirationSeconds": int64(1<<32 + 1)}},
		{"metadata": map[string]any{"name": "other"}},
	} {
		if _, _, refused := Request(body, sa, now, "m", "j"); refused == nil {
			t.Errorf("Request(%v) accepted, want refused", body)
		}
	}
}
