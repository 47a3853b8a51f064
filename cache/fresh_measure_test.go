// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestMemoryOutOfScopeWrites measures the heap the records of 100,000
// writes hold when the cache cannot see them (ConfigMaps, with a label
// and an owner, in a namespace the cache does not watch), then of
// 100,000 writes the cache could see but whose events never come. It
// reports the heap held after runtime.GC (HeapAlloc after minus before)
// and the records kept. Run it with
//
//	KUBELOOP_MEASURE=1 go test -count=1 -run TestMemoryOutOfScopeWrites -v ./cache/
func TestMemoryOutOfScopeWrites(t *testing.T) {
	if os.Getenv("KUBELOOP_MEASURE") == "" {
		t.Skip("set KUBELOOP_MEASURE=1 to run the measurements")
	}
	const n = 100000
	srv := newBareServer(t, kubetest.Options{})
	client, err := srv.Client(kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(client, Options{Namespaces: []string{"watched"}})
	if err != nil {
		t.Fatal(err)
	}
	go c.Start(t.Context())
	if err := c.Get(t.Context(), kube.Key{Namespace: "watched", Name: "none"}, &kube.ConfigMap{}); !kube.IsNotFound(err) {
		t.Fatalf("first read: %v, want not found", err)
	}
	gvk := kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	// Out of scope: a namespace the cache does not watch. In scope but
	// never seen: the watched namespace, at versions the server has not
	// reached (as writes whose events never come).
	for _, ns := range []string{"elsewhere", "watched"} {
		written := make([]kube.Written, n)
		for i := range written {
			written[i] = kube.Written{Kind: gvk, Key: kube.Key{Namespace: ns, Name: fmt.Sprintf("object-%06d", i)},
				ResourceVersion: strconv.Itoa(1<<40 + i), Labels: map[string]string{"app": "demo"},
				Owners: []kube.OwnerReference{{APIVersion: "example.com/v1", Kind: "Widget", Name: fmt.Sprintf("w-%06d", i), UID: "u"}}}
		}
		before, _ := heap()
		for _, w := range written {
			c.RecordWrite(w)
		}
		after, _ := heap()
		runtime.KeepAlive(written)
		held := int64(after) - int64(before)
		r := c.FreshRecords()
		t.Logf("%d writes in namespace %s: heap held %d bytes (%.1f MiB), %d records of %d bytes, %d dropped",
			n, ns, held, float64(held)/(1<<20), r.Records, r.Bytes, r.Dropped)
	}
}
