// SPDX-License-Identifier: Apache-2.0

package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/queue"
)

// DefaultSecretKey is the data key of a kubeconfig Secret when
// Secrets.Key is empty (multicluster-runtime's kubeconfig provider uses
// the same).
const DefaultSecretKey = "kubeconfig"

// Secrets is a [Provider] of the clusters whose kubeconfigs are held in
// the Secrets of one namespace, the common fleet pattern: each Secret
// (of those LabelSelector selects) is a cluster named after the Secret,
// whose kubeconfig is the Secret's data at Key, of its current-context.
//
//   - A Secret added engages its cluster.
//   - A Secret whose kubeconfig changes engages its cluster again with
//     the new one (its cache starts over); other changes of the Secret
//     are ignored.
//   - A Secret removed, or whose kubeconfig is gone or no longer
//     parses, disengages its cluster (the parse error is logged).
//
// Secrets are handled one at a time, in a goroutine of their own, so a
// cluster slow to stop holds up no informer; an Engage that fails is
// retried with backoff. The provider watches only Namespace's Secrets
// (one list and watch), with a cache of its own.
type Secrets struct {
	// Client reads the Secrets: the manager's APIClient, say. Required.
	Client *kube.Client
	// Namespace holds the Secrets. Required.
	Namespace string
	// LabelSelector limits the Secrets read; empty means every Secret
	// of Namespace.
	LabelSelector kube.Selector
	// Key is the data key of the kubeconfig; empty means
	// [DefaultSecretKey].
	Key string
	// Parse makes the config of a Secret's kubeconfig; nil means
	// kube.ParseKubeconfig of its current-context. Set it to pick
	// another context, to add a transport, or to refuse some servers.
	Parse func(kubeconfig []byte) (*kube.Config, error)
	// Logger receives the provider's logs (with the key "secret"); nil
	// discards them.
	Logger *slog.Logger
}

// Run implements [Provider]. It fails at once when Client or Namespace
// is missing.
func (s Secrets) Run(ctx context.Context, e Engager) error {
	switch {
	case s.Client == nil:
		return errors.New("kubeconfig secrets: Client is nil")
	case s.Namespace == "":
		return errors.New("kubeconfig secrets: Namespace is empty")
	}
	if s.Key == "" {
		s.Key = DefaultSecretKey
	}
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.Parse == nil {
		s.Parse = func(data []byte) (*kube.Config, error) { return kube.ParseKubeconfig(data, "") }
	}
	inf, err := cache.NewInformer[kube.Secret](s.Client, cache.InformerOptions{
		Namespaces: []string{s.Namespace}, LabelSelector: s.LabelSelector, SyncPeriod: -1,
	})
	if err != nil {
		return fmt.Errorf("kubeconfig secrets: %w", err)
	}
	q, err := queue.New(queue.Options[string]{Name: "kubeconfig-secrets", DisableMetrics: true})
	if err != nil {
		return fmt.Errorf("kubeconfig secrets: %w", err)
	}
	add := func(sec *kube.Secret) { q.Add(sec.Name) }
	if _, err := inf.AddEventHandler(cache.HandlerFuncs[*kube.Secret]{
		AddFunc:    func(sec *kube.Secret, _ bool) { add(sec) },
		UpdateFunc: func(_, sec *kube.Secret, _ bool) { add(sec) },
		DeleteFunc: func(sec *kube.Secret, _ bool) { add(sec) },
	}); err != nil {
		return fmt.Errorf("kubeconfig secrets: %w", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = inf.Start(ctx) }) // fails only when started twice
	wg.Go(func() {
		// engaged holds the kubeconfig each cluster was engaged with.
		engaged := map[string][]byte{}
		for {
			name, ok := q.Get()
			if !ok {
				return
			}
			if err := s.sync(ctx, e, inf, name, engaged); err != nil && ctx.Err() == nil {
				s.Logger.Error("engage cluster of kubeconfig secret: retrying", "secret", name, "err", err)
				q.AddRateLimited(name)
			} else {
				q.Forget(name)
			}
			q.Done(name)
		}
	})
	<-ctx.Done()
	q.ShutDown()
	wg.Wait()
	return nil
}

// sync brings the cluster of the Secret name in line with the Secret:
// engaged with its kubeconfig, or disengaged.
func (s Secrets) sync(ctx context.Context, e Engager, inf *cache.Informer[kube.Secret], name string, engaged map[string][]byte) error {
	var data []byte
	sec, found := inf.Get(kube.Key{Namespace: s.Namespace, Name: name})
	if found {
		data = sec.Data[s.Key]
	}
	var cfg *kube.Config
	if len(data) > 0 {
		if bytes.Equal(data, engaged[name]) {
			return nil // the same kubeconfig: nothing to do
		}
		var err error
		if cfg, err = s.Parse(data); err != nil {
			s.Logger.Error("kubeconfig secret does not parse: its cluster is not engaged", "secret", name, "key", s.Key, "err", err)
		}
	} else if found {
		s.Logger.Error("kubeconfig secret has no kubeconfig: its cluster is not engaged", "secret", name, "key", s.Key)
	}
	if cfg == nil {
		if engaged[name] == nil {
			return nil
		}
		delete(engaged, name)
		if err := e.Disengage(ctx, name); err != nil && !errors.Is(err, ErrNotEngaged) {
			s.Logger.Error("disengage cluster of kubeconfig secret", "secret", name, "err", err)
		}
		return nil
	}
	if err := e.Engage(ctx, name, cfg); err != nil {
		return err
	}
	engaged[name] = data
	return nil
}
