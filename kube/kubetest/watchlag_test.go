// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestLagWatches: while the lag is in force each event arrives that long
// after it happened, in order, with no bookmark while one is held back;
// after undo events arrive at once again.
func TestLagWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{BookmarkInterval: 500 * time.Millisecond})
		w := openWatch(t, c, cmPath+"?watch=1&allowWatchBookmarks=true&resourceVersion="+s.CurrentResourceVersion())
		undo := s.LagWatches("configmaps", time.Second, time.Second)
		createCM(c, "a", "")
		time.Sleep(300 * time.Millisecond)
		createCM(c, "b", "")
		time.Sleep(600 * time.Millisecond) // 0.9s: a bookmark was due, a and b are held
		if lines, _ := w.pending(); len(lines) != 0 {
			t.Fatalf("at 0.9s: %q, want nothing (no event due, no bookmark past them)", lines)
		}
		time.Sleep(100 * time.Millisecond) // 1s: a is due
		if lines, _ := w.pending(); len(lines) != 1 || !strings.Contains(lines[0], `"name":"a"`) {
			t.Fatalf("at 1s: %q, want a's ADDED", lines)
		}
		time.Sleep(300 * time.Millisecond) // 1.3s: b is due
		if lines, _ := w.pending(); len(lines) != 1 || !strings.Contains(lines[0], `"name":"b"`) {
			t.Fatalf("at 1.3s: %q, want b's ADDED", lines)
		}
		undo()
		createCM(c, "c", "")
		if lines, _ := w.pending(); len(lines) != 1 || !strings.Contains(lines[0], `"name":"c"`) {
			t.Fatalf("after undo: %q, want c's ADDED at once", lines)
		}
	})
}
