// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// The minors whose answers the scenarios know; a scenario that differs
// between them compares f.minor(t) with these.
const (
	minorOldest = 33 // no shardSelector; WatchList only with its gate on
	minor36     = 36
	minorNewest = 37
)

// version returns the server's Kubernetes version, 1.MINOR.PATCH:
// Env.Version, else the gitVersion of its /version (read once per
// fixture).
func (f *fixture) version(t *testing.T) string {
	t.Helper()
	f.versionAsked = true
	if f.env.Version == "" {
		r := f.send(t, "GET", "/version", "", "")
		var v struct {
			GitVersion string `json:"gitVersion"`
		}
		if err := json.Unmarshal(r.body, &v); err != nil || r.code != 200 || v.GitVersion == "" {
			t.Fatalf("GET /version = %d %s: want 200 and a gitVersion", r.code, r.body)
		}
		f.env.Version = v.GitVersion
	}
	return strings.TrimPrefix(f.env.Version, "v")
}

// minor returns the minor of the server's version: 36 for 1.36.3.
func (f *fixture) minor(t *testing.T) int {
	t.Helper()
	v := f.version(t)
	_, rest, _ := strings.Cut(v, ".")
	minor, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(minor)
	if err != nil || !strings.HasPrefix(v, "1.") {
		t.Fatalf("server version %q is not 1.MINOR.PATCH", v)
	}
	return n
}

// skipBefore skips the scenario on servers older than 1.minor, saying
// what they lack.
func (f *fixture) skipBefore(t *testing.T, minor int, lack string) {
	t.Helper()
	if m := f.minor(t); m < minor {
		t.Skipf("1.%d %s (1.%d and newer have it)", m, lack, minor)
	}
}

// serverShards reports whether the server filters lists and watches by
// shardSelector: 1.36 and newer, whose ShardedListAndWatch gate the harness
// turns on (kubetest always does). 1.33 ignores the parameter, and a
// sharded informer then drops what is not its shard itself.
func (f *fixture) serverShards(t *testing.T) bool {
	t.Helper()
	return f.minor(t) >= minor36
}

// skipWithoutServerShards skips a scenario of the server's filtering on a
// server that ignores shardSelector.
func (f *fixture) skipWithoutServerShards(t *testing.T) {
	t.Helper()
	f.skipBefore(t, minor36, "has no ShardedListAndWatch gate: it ignores shardSelector, so there is no server filtering to check")
}

// checkShardDropped checks who filtered an informer's shard: the server
// (nothing dropped on the client) when it filters, else the client.
func (f *fixture) checkShardDropped(t *testing.T, dropped int64) {
	t.Helper()
	switch serverFilters := f.serverShards(t); {
	case serverFilters && dropped != 0:
		t.Errorf("ShardDropped = %d, want 0: the server filters", dropped)
	case !serverFilters && dropped == 0:
		t.Errorf("ShardDropped = 0 on 1.%d, which ignores shardSelector: want the client to drop what is not its shard", f.minor(t))
	}
}
