// SPDX-License-Identifier: Apache-2.0

package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/queue"
)

// DefaultSecretKey is the data key of a kubeconfig Secret when
// Secrets.Key is empty (multicluster-runtime's kubeconfig provider uses
// the same).
const DefaultSecretKey = "kubeconfig"

// DefaultReengageInterval is Secrets.ReengageInterval when zero.
const DefaultReengageInterval = 30 * time.Second

// Secrets is a [Provider] of the clusters whose kubeconfigs are held in
// the Secrets of one namespace, the common fleet pattern: each Secret
// (of those LabelSelector selects) is a cluster named after the Secret,
// whose kubeconfig is the Secret's data at Key, of Context (its
// current-context by default).
//
//   - A Secret added engages its cluster.
//   - A Secret whose kubeconfig changes engages its cluster again with
//     the new one (its cache starts over); other changes of the Secret
//     are ignored. A cluster is engaged at most once per
//     ReengageInterval: a kubeconfig that changes in a loop does not
//     start and stop its cluster in a loop.
//   - A Secret removed, or whose kubeconfig is gone, no longer parses or
//     is refused (see Policy), disengages its cluster at once (the
//     error, naming the Secret and the field, is logged).
//
// Whoever may write a Secret in Namespace chooses a cluster and
// credentials this program uses: the program connects to any server
// the kubeconfig names, over https, and acts there with whatever
// credentials it carries as data. Policy's zero value refuses what
// would reach into the program's own process: an exec plugin (a
// command run here), file paths (tokenFile would send the pod's own
// service account token to the server), plain http,
// insecure-skip-tls-verify and a proxy; each is allowed by name, and
// whoever writes Secrets there can then use it too. Grant write access
// to Namespace as you would grant the program's own permissions.
//
// Secrets are handled one at a time, in a goroutine of their own, so a
// cluster slow to stop holds up no informer; an Engage that fails is
// retried with backoff, and one refused for the fleet's MaxClusters
// also when this provider disengages a cluster. The provider watches
// only Namespace's Secrets (one list and watch), with a cache of its
// own.
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
	// Context is the kubeconfig context used; empty means each
	// kubeconfig's current-context.
	Context string
	// Policy says which of a kubeconfig's powers over this process the
	// provider honours (see kube.KubeconfigPolicy); the zero value
	// refuses them all. `kubectl config view --minify --flatten` writes
	// a kubeconfig whose files are carried as data.
	Policy kube.KubeconfigPolicy
	// Configure, when set, is given the config parsed from each Secret
	// (under Policy), and the config it returns is engaged: set it to
	// add a transport or a rate limit, or to refuse some servers (an
	// error is logged as a refusal is, and engages nothing).
	Configure func(cfg *kube.Config) (*kube.Config, error)
	// ReengageInterval is the least time between two engagements of one
	// Secret's cluster: a kubeconfig changed sooner after the last
	// engagement is engaged once the interval has passed (the cluster
	// keeps its previous kubeconfig until then). A Secret that goes or
	// is refused disengages its cluster at once. Zero or negative means
	// [DefaultReengageInterval].
	ReengageInterval time.Duration
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
	if s.ReengageInterval <= 0 {
		s.ReengageInterval = DefaultReengageInterval
	}
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
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
		w := &secretsWorker{s: s, e: e, inf: inf, q: q, engaged: map[string][]byte{}, last: map[string]time.Time{}, waiting: map[string]bool{}}
		for {
			name, ok := q.Get()
			if !ok {
				return
			}
			w.handle(ctx, name)
			q.Done(name)
		}
	})
	<-ctx.Done()
	q.ShutDown()
	wg.Wait()
	return nil
}
