// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"errors"
	"github.com/kubeloop/kubeloop/internal/errs"
	"slices"
)

// warmer is a source that can make and sync its informer without
// registering a handler: the kind sources do.
type warmer interface {
	warmup(ctx context.Context) error
}

// Warmup makes the informers of the kind sources watched before Start and
// waits, within [Options.CacheSyncTimeout], for them to sync; it registers
// no handler and starts no worker. A manager calls it on every replica
// while the leader election runs (as controller-runtime's
// WarmupRunnable), so that a replica elected later starts reconciling at
// once instead of listing first. The informers keep running in the
// manager's cache. Calling it is optional: Start does the same work when
// it was not done.
func (c *Controller) Warmup(ctx context.Context) error {
	if !c.made() {
		return errNoController
	}
	c.mu.Lock()
	sources := slices.Clone(c.sources)
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, c.syncTimeout)
	defer cancel()
	for _, src := range sources {
		w, ok := src.(warmer)
		if !ok {
			continue
		}
		if err := w.warmup(ctx); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return errs.Errorf("warm up controller %q: %s not synced within CacheSyncTimeout %v: %w", c.name, src, c.syncTimeout, err)
			}
			return errs.Errorf("warm up controller %q: %s: %w", c.name, src, err)
		}
	}
	return nil
}

// warmup resolves the source's informer (making it in the cache) and waits
// for it to sync.
func (k *kindSource) warmup(ctx context.Context) error {
	src, _, err := k.resolve(ctx)
	if err != nil {
		return err
	}
	if src == nil {
		return errors.New("cache source is nil")
	}
	return src.WaitForSync(ctx)
}
