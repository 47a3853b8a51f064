// SPDX-License-Identifier: Apache-2.0

package wait

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if !Sleep(t.Context(), time.Hour) {
			t.Errorf("Sleep(live ctx, 1h) = false, want true")
		}
		if got := time.Since(start); got != time.Hour {
			t.Errorf("Sleep(live ctx, 1h) took %v, want 1h", got)
		}

		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		start = time.Now()
		if Sleep(ctx, time.Hour) {
			t.Errorf("Sleep(ctx done after 1m, 1h) = true, want false")
		}
		if got := time.Since(start); got != time.Minute {
			t.Errorf("Sleep(ctx done after 1m, 1h) took %v, want 1m", got)
		}
		if Sleep(ctx, 0) {
			t.Errorf("Sleep(done ctx, 0) = true, want false")
		}
	})
}
