// SPDX-License-Identifier: Apache-2.0

package certs

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// The kinds whose caBundles an [Injector] keeps.
var (
	kindValidating = kube.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"}
	kindMutating   = kube.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingWebhookConfiguration"}
	kindCRD        = kube.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
)

// Injector keeps the caBundle of the webhook configurations and CRDs
// named in [Options] equal to the CAs of the Secret: when it starts, when
// the CAs change, and when anything else changes one of those objects.
// It needs leader election (one writer); get it from [Certs.Injector] and
// add it to the manager.
type Injector struct{ c *Certs }

// Injector returns the runnable that keeps the caBundles of c's webhook
// configurations and CRDs.
func (c *Certs) Injector() *Injector { return &Injector{c: c} }

// Name is its name in the manager's errors and logs.
func (*Injector) Name() string { return "webhook caBundle injector" }

// NeedLeaderElection reports true: only the leader writes the caBundles.
func (*Injector) NeedLeaderElection() bool { return true }

// target is one object whose caBundle the injector keeps.
type target struct {
	gvk  kube.GroupVersionKind
	name string
	inf  *cache.Informer[kube.Unstructured]
}

// Start keeps the caBundles until ctx is done, and returns nil then, once
// its informers (one per object, watching it by name) have stopped.
// Writes are updates at the resourceVersion read, so that a change made
// meanwhile is not overwritten: a conflict is decided again on the
// object's new state. Other failures are logged and retried with backoff,
// from 1s to a minute. The Secret is read by the [Certs] (the webhook
// server runs it): until it has been read once, nothing is written.
func (in *Injector) Start(ctx context.Context) error {
	c := in.c
	poke := make(chan struct{}, 1)
	var targets []*target
	for _, group := range []struct {
		gvk   kube.GroupVersionKind
		names []string
	}{{kindValidating, c.vwcs}, {kindMutating, c.mwcs}, {kindCRD, c.crds}} {
		for _, name := range group.names {
			inf, err := cache.NewInformer[kube.Unstructured](c.client, cache.InformerOptions{
				Kind:          group.gvk,
				FieldSelector: kube.FieldSelectorFromSet(map[string]string{"metadata.name": name}),
				Logger:        c.log,
			})
			if err != nil {
				return fmt.Errorf("start caBundle injector: %w", err)
			}
			if _, err := inf.AddEventHandler(pokeHandler[*kube.Unstructured](poke)); err != nil {
				return fmt.Errorf("start caBundle injector: %w", err)
			}
			targets = append(targets, &target{gvk: group.gvk, name: name, inf: inf})
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for _, t := range targets {
		wg.Go(func() { _ = t.inf.Start(ctx) })
	}
	for _, t := range targets {
		if err := t.inf.WaitForSync(ctx); err != nil {
			return nil // ctx is done
		}
	}

	var retry backoff
	for {
		bundle, changed := c.CABundle()
		var errs []error
		if bundle != nil {
			for _, t := range targets {
				if err := in.inject(ctx, t, bundle); err != nil {
					errs = append(errs, err)
				}
			}
		}
		var after <-chan time.Time
		var timer *time.Timer
		if err := errors.Join(errs...); err != nil && ctx.Err() == nil {
			d := retry.next()
			c.log.Error("inject caBundle; retrying", "err", err, "after", d)
			timer = time.NewTimer(d)
			after = timer.C
		} else {
			retry = backoff{}
		}
		select {
		case <-ctx.Done():
		case <-changed:
		case <-poke:
		case <-after:
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// inject writes bundle into t's caBundles, if the object exists and any
// differs. A conflict is no error: the informer brings the new state,
// which pokes the loop.
func (in *Injector) inject(ctx context.Context, t *target, bundle []byte) error {
	obj, ok := t.inf.Get(kube.Key{Name: t.name})
	if !ok {
		return nil // made later: its add pokes the loop
	}
	want := base64.StdEncoding.EncodeToString(bundle)
	n, err := setCABundles(t.gvk, obj.Content, want)
	if err != nil {
		return fmt.Errorf("%s %s: %w", t.gvk.Kind, t.name, err)
	}
	if n == 0 {
		return nil
	}
	switch err := in.c.client.Update(ctx, obj); {
	case kube.IsConflict(err):
		return nil
	case err != nil:
		return fmt.Errorf("update %s %s: %w", t.gvk.Kind, t.name, err)
	}
	in.c.log.Info("injected caBundle", "kind", t.gvk.Kind, "name", t.name, "webhooks", n, "rv", obj.ResourceVersion)
	return nil
}

// setCABundles sets every caBundle of an object of kind gvk to want (in
// base64, as on the wire), and returns how many it changed. A CRD
// without a conversion webhook has none, and is an error: it was named
// for one.
func setCABundles(gvk kube.GroupVersionKind, content map[string]any, want string) (int, error) {
	set := func(clientConfig any) int {
		cc, ok := clientConfig.(map[string]any)
		if !ok || cc["caBundle"] == want {
			return 0
		}
		cc["caBundle"] = want
		return 1
	}
	if gvk == kindCRD {
		spec, _ := content["spec"].(map[string]any)
		conv, _ := spec["conversion"].(map[string]any)
		wh, _ := conv["webhook"].(map[string]any)
		if conv["strategy"] != "Webhook" || wh["clientConfig"] == nil {
			return 0, errors.New("no conversion webhook: set spec.conversion.strategy Webhook and its webhook.clientConfig")
		}
		return set(wh["clientConfig"]), nil
	}
	hooks, _ := content["webhooks"].([]any)
	n := 0
	for _, h := range hooks {
		if m, ok := h.(map[string]any); ok {
			n += set(m["clientConfig"])
		}
	}
	return n, nil
}
