// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

func TestShardHash(t *testing.T) {
	// FNV-1a 64 test vectors, and a uid the issue checked against the server.
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{"", 0xcbf29ce484222325},
		{"a", 0xaf63dc4c8601ec8c},
		{"foobar", 0x85944171f73967e8},
	} {
		if got := kube.ShardHash(tc.in); got != tc.want {
			t.Errorf("ShardHash(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

func TestShardSelectorString(t *testing.T) {
	for _, tc := range []struct {
		sel  kube.ShardSelector
		want string
	}{
		{kube.ShardSelector{}, ""},
		{kube.ShardSelector{Ranges: []kube.HashRange{{}}},
			"shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')"},
		{kube.ShardSelector{Field: kube.ShardByNamespace, Ranges: []kube.HashRange{{Start: 0xaa, End: 0xff}, {Start: 1 << 63}}},
			"shardRange(object.metadata.namespace, '0x00000000000000aa', '0x00000000000000ff') || " +
				"shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')"},
	} {
		if got := tc.sel.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestShardSelectorMatches(t *testing.T) {
	obj := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "", UID: "a"}} // hashes 0xaf63…, "" 0xcbf2…
	for _, tc := range []struct {
		sel  kube.ShardSelector
		want bool
	}{
		{kube.ShardSelector{}, true},
		{kube.ShardSelector{Ranges: []kube.HashRange{{Start: 0xaf63dc4c8601ec8c, End: 0xaf63dc4c8601ec8d}}}, true},
		{kube.ShardSelector{Ranges: []kube.HashRange{{Start: 0xaf63dc4c8601ec8d}}}, false},
		{kube.ShardSelector{Ranges: []kube.HashRange{{End: 0xaf63dc4c8601ec8c}}}, false}, // End is exclusive
		{kube.ShardSelector{Ranges: []kube.HashRange{{End: 1}, {Start: 0xa000000000000000, End: 0xb000000000000000}}}, true},
		{kube.ShardSelector{Field: kube.ShardByNamespace, Ranges: []kube.HashRange{{Start: 0xcbf29ce484222325}}}, true},
		{kube.ShardSelector{Field: kube.ShardByNamespace, Ranges: []kube.HashRange{{End: 0xcbf29ce484222325}}}, false},
	} {
		if got := tc.sel.Matches(obj); got != tc.want {
			t.Errorf("%s.Matches(uid a) = %v, want %v", tc.sel, got, tc.want)
		}
	}
}

func TestShardSelectorIsAListOption(t *testing.T) {
	sel := kube.ShardSelector{Ranges: []kube.HashRange{{End: 1 << 62}}}
	o := kube.NewListOptions(kube.InNamespace("ns"), sel, kube.ListOptions{Limit: 3})
	if o.ShardSelector.String() != sel.String() || o.Namespace != "ns" || o.Limit != 3 {
		t.Errorf("NewListOptions = %+v, want the selector, namespace ns and limit 3", o)
	}
}
