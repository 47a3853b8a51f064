// SPDX-License-Identifier: Apache-2.0

package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/queue"
)

// secretsWorker brings the clusters of a [Secrets] provider in line with
// its Secrets, one Secret at a time. Only the provider's worker
// goroutine uses it.
type secretsWorker struct {
	s   Secrets // defaults set
	e   Engager
	inf *cache.Informer[kube.Secret]
	q   *queue.Queue[string]
	// engaged holds the kubeconfig each cluster is engaged with, by
	// Secret name; a name is here exactly while this provider has its
	// cluster engaged.
	engaged map[string][]byte
	// last holds when each name was last engaged, for ReengageInterval;
	// kept after its cluster is disengaged (a Secret removed and added
	// again in a loop is paced too), dropped once older than the
	// interval.
	last map[string]time.Time
	// waiting holds the names whose Engage the fleet refused for its
	// MaxClusters; they are tried again whenever this provider
	// disengages a cluster.
	waiting map[string]bool
}

// handle syncs the Secret name and queues it again as its outcome
// asks: after the rest of ReengageInterval, or with backoff after an
// error.
func (w *secretsWorker) handle(ctx context.Context, name string) {
	wait, err := w.sync(ctx, name)
	switch {
	case err != nil && ctx.Err() == nil:
		if !errors.Is(err, ErrClusterLimit) {
			w.s.Logger.Error("engage cluster of kubeconfig secret: retrying", "secret", name, "err", err)
		}
		w.q.AddRateLimited(name)
	case wait > 0:
		w.q.Forget(name)
		w.q.AddAfter(name, wait)
	default:
		w.q.Forget(name)
	}
}

// sync brings the cluster of the Secret name in line with the Secret:
// engaged with its kubeconfig, or disengaged. It returns how long to
// wait before a changed kubeconfig may be engaged, when that is not yet.
func (w *secretsWorker) sync(ctx context.Context, name string) (time.Duration, error) {
	var data []byte
	sec, found := w.inf.Get(kube.Key{Namespace: w.s.Namespace, Name: name})
	if found {
		data = sec.Data[w.s.Key]
	}
	var cfg *kube.Config
	if len(data) > 0 {
		if bytes.Equal(data, w.engaged[name]) {
			return 0, nil // the same kubeconfig: nothing to do
		}
		var err error
		if cfg, err = w.config(name, data); err != nil {
			w.s.Logger.Error("kubeconfig secret refused: its cluster is not engaged", "secret", name, "err", err)
		}
	} else if found {
		w.s.Logger.Error("kubeconfig secret has no kubeconfig: its cluster is not engaged", "secret", name, "key", w.s.Key)
	}
	if cfg == nil {
		w.disengage(ctx, name)
		return 0, nil
	}
	now := time.Now()
	w.forgetBefore(now.Add(-w.s.ReengageInterval))
	if at, ok := w.last[name]; ok {
		return at.Add(w.s.ReengageInterval).Sub(now), nil
	}
	if err := w.e.Engage(ctx, name, cfg); err != nil {
		if errors.Is(err, ErrClusterLimit) && !w.waiting[name] {
			w.waiting[name] = true
			w.s.Logger.Debug("kubeconfig secret waits: the fleet has its most clusters engaged", "secret", name)
		}
		return 0, err
	}
	delete(w.waiting, name)
	w.engaged[name], w.last[name] = data, now
	return 0, nil
}

// config parses the kubeconfig data of the Secret name under the
// provider's Policy, then passes it through Configure.
func (w *secretsWorker) config(name string, data []byte) (*kube.Config, error) {
	cfg, err := kube.ParseKubeconfigWith(data, w.s.Context, w.s.Policy)
	if err == nil && w.s.Configure != nil {
		cfg, err = w.s.Configure(cfg)
		if err == nil && cfg == nil {
			err = errors.New("configure: returned no config")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("kubeconfig secret %s/%s key %s: %w", w.s.Namespace, name, w.s.Key, err)
	}
	return cfg, nil
}

// disengage disengages the cluster of name if this provider engaged it,
// and then tries again the names waiting for room.
func (w *secretsWorker) disengage(ctx context.Context, name string) {
	delete(w.waiting, name)
	if w.engaged[name] == nil {
		return
	}
	delete(w.engaged, name)
	if err := w.e.Disengage(ctx, name); err != nil && !errors.Is(err, ErrNotEngaged) {
		w.s.Logger.Error("disengage cluster of kubeconfig secret", "secret", name, "err", err)
	}
	for waiting := range w.waiting {
		w.q.Add(waiting)
	}
}

// forgetBefore drops the engagement times before t: those names may be
// engaged again at once.
func (w *secretsWorker) forgetBefore(t time.Time) {
	for name, at := range w.last {
		if !at.After(t) {
			delete(w.last, name)
		}
	}
}
