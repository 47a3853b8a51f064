// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"net/http"
	"testing"
)

// Runnables with one optional method each, and one with them all.
type (
	plainRunnable   struct{}
	replicaRunnable struct{ plainRunnable }
	cacheRunnable   struct{ plainRunnable }
	warmRunnable    struct{ plainRunnable }
	namedRunnable   struct{ plainRunnable }
	webhookRunnable struct{ plainRunnable }
)

func (plainRunnable) Start(ctx context.Context) error             { <-ctx.Done(); return nil }
func (replicaRunnable) NeedLeaderElection() bool                  { return false }
func (cacheRunnable) WaitForSync(context.Context) error           { return nil }
func (warmRunnable) Warmup(context.Context) error                 { return nil }
func (namedRunnable) Name() string                                { return "n" }
func (webhookRunnable) Listen() error                             { return nil }
func (webhookRunnable) StartedChecker() func(*http.Request) error { return nil }
func (webhookRunnable) NeedLeaderElection() bool                  { return false }

// classify reads each optional method, and groupFor places the runnable
// by them: a cache with the caches, one that needs no election on every
// replica, the rest behind the lease; a named runnable with metrics is a
// controller.
func TestClassify(t *testing.T) {
	m := &Manager{caches: newGroup("caches", nil), webhooks: newGroup("webhooks", nil), others: newGroup("others", nil), leaders: newGroup("leaders", nil)}
	for _, tc := range []struct {
		r          Runnable
		name       string
		group      *group
		warmup     bool
		controller bool
		webhook    bool
	}{
		{plainRunnable{}, "manager.plainRunnable", m.leaders, false, false, false},
		{replicaRunnable{}, "manager.replicaRunnable", m.others, false, false, false},
		{cacheRunnable{}, "manager.cacheRunnable", m.caches, false, false, false},
		{warmRunnable{}, "manager.warmRunnable", m.leaders, true, false, false},
		{namedRunnable{}, `"n" (manager.namedRunnable)`, m.leaders, false, false, false},
		{&fakeController{name: "c"}, `"c" (*manager.fakeController)`, m.leaders, false, true, false},
		{webhookRunnable{}, "manager.webhookRunnable", m.webhooks, false, false, true},
	} {
		c := classify(tc.r)
		if c.name != tc.name || m.groupFor(c) != tc.group || (c.warmup != nil) != tc.warmup || c.controller != tc.controller ||
			(c.listen != nil && c.ready != nil) != tc.webhook {
			t.Errorf("classify(%T) = name %s, group %s, warmup %v, controller %v, webhook %v; want %s, %s, %v, %v, %v",
				tc.r, c.name, m.groupFor(c).name, c.warmup != nil, c.controller, c.listen != nil && c.ready != nil,
				tc.name, tc.group.name, tc.warmup, tc.controller, tc.webhook)
		}
	}
}
