// SPDX-License-Identifier: Apache-2.0

package metricsauth

import (
	"sync"
	"time"
)

// This file remembers the API server's decisions for a while, so that a
// scraper that comes back every few seconds with the same token costs
// two reviews a minute, not two per scrape.

// How long a decision is kept, and how many are.
const (
	// allowedTTL is how long a caller let in is let in without a new
	// review: a minute, controller-runtime's cache of tokens (it keeps
	// an authorization 5 minutes), so that a token revoked or a binding
	// removed is seen within a minute.
	allowedTTL = time.Minute
	// refusedTTL is how long a refusal (401 or 403) stands: 30 seconds,
	// as controller-runtime keeps a denial.
	refusedTTL = 30 * time.Second
	// maxDecisions bounds the decisions kept (some 150 bytes each): a
	// caller sending new tokens or paths evicts the oldest, it does not
	// grow the map.
	maxDecisions = 1024
)

// decisionKey is what a decision is about: the token (its SHA-256, so
// that no token is kept) and what it asked.
type decisionKey struct {
	token      [32]byte
	verb, path string
}

// decision is what the API server decided of one caller's request.
type decision struct {
	authenticated bool   // the TokenReview's status.authenticated
	user          string // the user the token is, when authenticated
	allowed       bool   // the SubjectAccessReview's status.allowed
}

// decisions is a bounded map of decisions, each valid until its expiry.
type decisions struct {
	mu sync.Mutex
	// byKey holds at most maxDecisions entries, expired ones included
	// until a put needs their room.
	byKey map[decisionKey]cached
}

type cached struct {
	d       decision
	expires time.Time
}

func newDecisions() *decisions { return &decisions{byKey: map[decisionKey]cached{}} }

// get returns the decision of k, if one is kept that has not expired at
// now.
func (c *decisions) get(k decisionKey, now time.Time) (decision, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok || !now.Before(e.expires) {
		return decision{}, false
	}
	return e.d, true
}

// put keeps d for k from now, for allowedTTL if it let the caller in,
// else refusedTTL. When the map is full it first drops the expired
// entries, then, if none had, the one that expires first: O(maxDecisions)
// then, on a put only.
func (c *decisions) put(k decisionKey, d decision, now time.Time) {
	ttl := refusedTTL
	if d.authenticated && d.allowed {
		ttl = allowedTTL
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; !ok && len(c.byKey) >= maxDecisions {
		c.evict(now)
	}
	c.byKey[k] = cached{d: d, expires: now.Add(ttl)}
}

// evict makes room for one entry.
func (c *decisions) evict(now time.Time) {
	var first decisionKey
	var firstExpiry time.Time
	for k, e := range c.byKey {
		if !now.Before(e.expires) {
			delete(c.byKey, k)
			continue
		}
		if firstExpiry.IsZero() || e.expires.Before(firstExpiry) {
			first, firstExpiry = k, e.expires
		}
	}
	if len(c.byKey) >= maxDecisions {
		delete(c.byKey, first)
	}
}
