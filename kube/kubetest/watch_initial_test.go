// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestWatchListEndsWithoutSecondBookmark: a watch with sendInitialEvents
// and a timeout sends the initial events, the initial-events-end
// bookmark, and then nothing until it ends, as kube-apiserver 1.36.3's
// watch cache does (checked on the real server with timeouts of 1 to 25
// s); a watch without initial events gets its bookmark before the
// timeout as before.
func TestWatchListEndsWithoutSecondBookmark(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := newTestServer(t, Options{})
		createCM(c, "a", "")
		w := openWatch(t, c, cmPath+"?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=5")
		time.Sleep(6 * time.Second)
		lines, ended := w.pending()
		if !ended || len(lines) != 2 || !strings.Contains(lines[0], `"ADDED"`) || !strings.Contains(lines[1], `"k8s.io/initial-events-end":"true"`) {
			t.Errorf("watch list with a timeout sent %q (ended %v), want ADDED a and the initial-events-end bookmark only", lines, ended)
		}
	})
}
