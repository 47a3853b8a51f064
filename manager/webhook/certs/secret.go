// SPDX-License-Identifier: Apache-2.0

package certs

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// runSecret keeps the Secret and serves what it holds until ctx is done:
// it watches the Secret, creates it when it is missing and writes what
// [plan] decides, at the resourceVersion read.
func (c *Certs) runSecret(ctx context.Context) error {
	inf, err := cache.NewInformer[kube.Secret](c.client, cache.InformerOptions{
		Namespaces:    []string{c.secret.Namespace},
		FieldSelector: kube.FieldSelectorFromSet(map[string]string{"metadata.name": c.secret.Name}),
		Logger:        c.log,
	})
	if err != nil {
		return fmt.Errorf("start webhook certificates: %w", err)
	}
	poke := make(chan struct{}, 1)
	if _, err := inf.AddEventHandler(pokeHandler[*kube.Secret](poke)); err != nil {
		return fmt.Errorf("start webhook certificates: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { _ = inf.Start(ctx) })
	if err := inf.WaitForSync(ctx); err != nil {
		return nil // ctx is done
	}

	var last *kube.Secret // the newest state known: read or written
	var retry backoff
	for {
		// The informer's state, unless this replica wrote a later one
		// that the watch has not brought yet. When the informer has none
		// but the Secret exists (written here, not seen yet), the create
		// that keep tries fails and keep reads it.
		if sec, ok := inf.Get(c.secret); !ok {
			last = nil
		} else if newer(sec, last) {
			last = sec
		}
		wake, err := c.keep(ctx, &last)
		if ctx.Err() != nil || !c.wait(ctx, poke, &retry, wake, err) {
			return nil
		}
	}
}

// keep serves what *last holds and writes what [plan] decides, re-reading
// the Secret when a write conflicts with another replica's. It returns
// when to look again.
func (c *Certs) keep(ctx context.Context, last **kube.Secret) (time.Time, error) {
	for range 4 {
		var data map[string][]byte
		if *last != nil {
			data = (*last).Data
			c.load(data)
		}
		out, what, wake, err := plan(time.Now(), data, c.pol)
		if err != nil {
			return time.Time{}, fmt.Errorf("make certificates: %w", err)
		}
		if out == nil {
			return wake, nil
		}
		written, err := c.write(ctx, *last, out)
		switch {
		case err == nil:
			c.log.Info("wrote webhook certificates", "what", what, "rv", written.ResourceVersion)
			*last = written
		case kube.IsAlreadyExists(err) || kube.IsConflict(err):
			// Another replica wrote first: decide again on what it wrote.
			var sec kube.Secret
			switch gerr := c.client.Get(ctx, c.secret, &sec); {
			case gerr == nil:
				*last = &sec
			case kube.IsNotFound(gerr):
				*last = nil
			default:
				return time.Time{}, fmt.Errorf("read Secret %s: %w", c.secret, gerr)
			}
		default:
			return time.Time{}, err
		}
	}
	return time.Time{}, fmt.Errorf("write Secret %s: changed by another writer at each of 4 attempts", c.secret)
}

// write creates the Secret with data, or updates sec (optimistically, at
// its resourceVersion) with data's keys.
func (c *Certs) write(ctx context.Context, sec *kube.Secret, data map[string][]byte) (*kube.Secret, error) {
	if sec == nil {
		s := &kube.Secret{
			ObjectMeta: kube.ObjectMeta{Namespace: c.secret.Namespace, Name: c.secret.Name},
			Type:       "kubernetes.io/tls",
			Data:       data,
		}
		if err := c.client.Create(ctx, s); err != nil {
			return nil, fmt.Errorf("create Secret %s: %w", c.secret, err)
		}
		return s, nil
	}
	s := *sec
	s.Data = maps.Clone(sec.Data)
	if s.Data == nil {
		s.Data = map[string][]byte{}
	}
	maps.Copy(s.Data, data)
	if err := c.client.Update(ctx, &s); err != nil {
		return nil, fmt.Errorf("update Secret %s: %w", c.secret, err)
	}
	return &s, nil
}

// newer reports whether a is a later state than b (nil is the oldest).
// resourceVersions are compared as integers (KEP-5504); where they are
// not integers, a read is taken as the newer.
func newer(a, b *kube.Secret) bool {
	if b == nil {
		return true
	}
	x, errA := strconv.ParseUint(a.ResourceVersion, 10, 64)
	y, errB := strconv.ParseUint(b.ResourceVersion, 10, 64)
	if errA != nil || errB != nil {
		return a.ResourceVersion != b.ResourceVersion
	}
	return x > y
}
