// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

func TestNewMemberValidates(t *testing.T) {
	client, err := kube.NewClient(&kube.Config{Host: "http://127.0.0.1:1"}, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	good := RingOptions{Client: client, Namespace: "default", Ring: "mirror", Identity: "pod-a_1234",
		Work: func(context.Context, kube.ShardSelector) error { return nil }}
	for _, tc := range []struct {
		name    string
		edit    func(*RingOptions)
		wantErr string // empty: valid
	}{
		{"defaults", func(*RingOptions) {}, ""},
		{"no work", func(c *RingOptions) { c.Work = nil }, "Work is nil"},
		{"bad field", func(c *RingOptions) { c.Field = "spec.x" }, `Field "spec.x"`},
		{"no ring", func(c *RingOptions) { c.Ring = "" }, `Ring "" must not be empty`},
		{"dotted ring", func(c *RingOptions) { c.Ring = "a.b" }, `Ring "a.b" must be a DNS-1123 label`},
		{"too many ranges", func(c *RingOptions) { c.Ranges = MaxRanges + 1 }, "Ranges 4097 must be between 1 and 4096"},
		{"negative ranges", func(c *RingOptions) { c.Ranges = -1 }, "Ranges -1 must be between 1 and 4096"},
		{"lease not above deadline", func(c *RingOptions) { c.LeaseDuration = 10 * time.Second }, "LeaseDuration 10s must be longer than RenewDeadline 10s"},
	} {
		m, err := NewMember(func() RingOptions { c := good; tc.edit(&c); return c }())
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("NewMember(%s) = %v, want no error", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("NewMember(%s) = %v, want an error containing %q", tc.name, err, tc.wantErr)
		case err == nil && (m.opts.Ranges != DefaultRanges || m.name != MemberLeaseName("mirror", "pod-a_1234")):
			t.Errorf("NewMember(%s): %d ranges, lease %q; want the defaults", tc.name, m.opts.Ranges, m.name)
		}
	}
}

// TestRingWorkReturningEarly has one Work return by itself (with an
// error): the member
// releases the range, rests it for RetryPeriod, then holds it again; Run
// may be called once.
func TestRingWorkReturningEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := newRingTest(t, 0, "solo")
		starts := make(chan time.Time, 10)
		var calls atomic.Int32
		rm := rt.start("solo", func(c *RingOptions) {
			c.Ranges = 4
			c.Work = func(ctx context.Context, sel kube.ShardSelector) error {
				if RangeOf(sel.Ranges[0].Start, 4).Index != 2 {
					<-ctx.Done()
					return nil
				}
				starts <- time.Now()
				if calls.Add(1) == 1 {
					return errors.New("the first time only")
				}
				<-ctx.Done()
				return nil
			}
		})
		first, second := <-starts, <-starts
		if gap := second.Sub(first); gap < retry || gap > retry+retry/4 {
			t.Errorf("Work of 2/4 started again %v after it returned, want after RetryPeriod %v", gap, retry)
		}
		if err := rm.m.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "Run was already called") {
			t.Errorf("second Run = %v, want an error", err)
		}
	})
}
