// SPDX-License-Identifier: Apache-2.0

package metricsauth

import (
	"crypto/sha256"
	"fmt"
	"testing"
	"time"
)

func keyOf(token string) decisionKey {
	return decisionKey{token: sha256.Sum256([]byte(token)), verb: "get", path: "/metrics"}
}

// TestDecisionsExpire: a caller let in is kept a minute, a refusal 30
// seconds; nothing is kept past its time.
func TestDecisionsExpire(t *testing.T) {
	c := newDecisions()
	now := time.Now()
	allowed := decision{authenticated: true, user: "prometheus", allowed: true}
	forbidden := decision{authenticated: true, user: "denied"}
	c.put(keyOf("a"), allowed, now)
	c.put(keyOf("f"), forbidden, now)
	c.put(keyOf("u"), decision{}, now)
	for _, tc := range []struct {
		token string
		after time.Duration
		want  bool
	}{
		{"a", allowedTTL - time.Nanosecond, true},
		{"a", allowedTTL, false},
		{"f", refusedTTL - time.Nanosecond, true},
		{"f", refusedTTL, false},
		{"u", refusedTTL - time.Nanosecond, true},
		{"u", refusedTTL, false},
		{"never", 0, false},
	} {
		if _, ok := c.get(keyOf(tc.token), now.Add(tc.after)); ok != tc.want {
			t.Errorf("get(%q) after %v = %v, want %v", tc.token, tc.after, ok, tc.want)
		}
	}
	if d, _ := c.get(keyOf("a"), now); d != allowed {
		t.Errorf("get(a) = %+v, want %+v", d, allowed)
	}
}

// TestDecisionsBounded: new tokens beyond maxDecisions evict the
// decision that expires first (expired ones before any), and the map
// never holds more than maxDecisions.
func TestDecisionsBounded(t *testing.T) {
	c := newDecisions()
	now := time.Now()
	for i := range maxDecisions {
		c.put(keyOf(fmt.Sprint(i)), decision{authenticated: true, allowed: true}, now.Add(time.Duration(i)*time.Millisecond))
	}
	c.put(keyOf("new"), decision{}, now.Add(time.Second))
	if n := len(c.byKey); n != maxDecisions {
		t.Fatalf("%d decisions kept, want %d", n, maxDecisions)
	}
	if _, ok := c.get(keyOf("0"), now.Add(time.Second)); ok {
		t.Error("the decision expiring first was kept, want it evicted")
	}
	if _, ok := c.get(keyOf("1"), now.Add(time.Second)); !ok {
		t.Error("the second decision was evicted, want it kept")
	}
	// Once all have expired, a put drops them all.
	c.put(keyOf("later"), decision{}, now.Add(time.Hour))
	if n := len(c.byKey); n != 1 {
		t.Errorf("%d decisions kept after all expired, want 1", n)
	}
}
