// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// TestShardSelectorOnTheWire checks the answers around the parser: the
// filter and shardInfo of a list, the 500 Status of a malformed selector
// (for a watch too), and a server with the gate off, which ignores the
// parameter. internal/scenario checks the rest on both servers.
func TestShardSelectorOnTheWire(t *testing.T) {
	half := url.QueryEscape(kube.ShardSelector{Ranges: []kube.HashRange{{End: 1 << 63}}}.String())
	malformed := url.QueryEscape("shardRange(object.metadata.uid, '0x0', '0x1')")
	const wantStatus = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
		`"message":"invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got \"0x0\" (did you mean \"0x0000000000000000\"?)","code":500}`
	for _, off := range []bool{false, true} {
		t.Run(fmt.Sprint("gate off ", off), func(t *testing.T) {
			_, c := newTestServer(t, Options{DisableShardedListAndWatch: off})
			var below int
			for i := range 20 {
				cm := c.mustDo(201, "POST", "/api/v1/namespaces/default/configmaps", fmt.Sprintf(`{"metadata":{"name":"cm%d"}}`, i))
				if kube.ShardHash(field(cm, "metadata.uid").(string)) < 1<<63 {
					below++
				}
			}
			list := c.mustDo(200, "GET", "/api/v1/namespaces/default/configmaps?shardSelector="+half, "")
			n, info := len(list["items"].([]any)), field(list, "metadata.shardInfo.selector")
			want, wantInfo := below, any("shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')")
			if off {
				want, wantInfo = 20, nil
			}
			if n != want || info != wantInfo {
				t.Errorf("list with a selector: %d items, shardInfo %v; want %d, %v", n, info, want, wantInfo)
			}
			for _, path := range []string{
				"/api/v1/namespaces/default/configmaps?shardSelector=" + malformed,
				"/api/v1/namespaces/default/configmaps?watch=1&shardSelector=" + malformed,
			} {
				resp := c.open(context.Background(), "GET", path, "")
				var body []byte
				if resp.StatusCode != 200 { // a watch answering 200 streams on
					body, _ = io.ReadAll(resp.Body)
				}
				resp.Body.Close()
				switch {
				case off && resp.StatusCode != 200:
					t.Errorf("GET %s = %d %s, want 200: the parameter is ignored", path, resp.StatusCode, body)
				case !off && (resp.StatusCode != 500 || string(body) != wantStatus):
					t.Errorf("GET %s = %d %s\nwant 500 %s", path, resp.StatusCode, body, wantStatus)
				}
			}
		})
	}
}
