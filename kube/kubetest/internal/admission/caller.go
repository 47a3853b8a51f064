// SPDX-License-Identifier: Apache-2.0

package admission

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// Caller is how the webhooks of one client request are called.
type Caller struct {
	// Ctx is the request's context.
	Ctx context.Context
	// Done is closed when the server closes, which ends the calls too.
	Done <-chan struct{}
	// Services resolves the service of a webhook (Options.WebhookServices).
	Services Resolver
	// Warn adds a warning to the request's answer.
	Warn func(warning string)
	// NullCreationTimestamp sends an object not yet created with
	// metadata.creationTimestamp: null, as 1.33 does
	// (minor.Facts.NullCreationTimestamp).
	NullCreationTimestamp bool
}

// nullCreationTimestamp gives o, an object not yet created, the
// creationTimestamp: null of c.NullCreationTimestamp.
func (c Caller) nullCreationTimestamp(o map[string]any) {
	if meta := unstructured.Metadata(o); c.NullCreationTimestamp && meta["creationTimestamp"] == nil {
		meta["creationTimestamp"] = nil
	}
}

// context is the context of the calls: it ends with the request, or
// when the server closes. cancel must be called.
func (c Caller) context() (ctx context.Context, cancel context.CancelFunc) {
	ctx, cancel = context.WithCancel(c.Ctx)
	go func() {
		select {
		case <-c.Done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// mutate is [Mutate], its warnings added to the answer.
func (c Caller) mutate(ctx context.Context, hooks []Webhook, req *Request) (obj, bool, *kube.StatusError) {
	mutated, changed, warnings, err := Mutate(ctx, hooks, c.Services, req)
	c.warnAll(warnings)
	return mutated, changed, err
}

// validate is [Validate], its warnings added to the answer.
func (c Caller) validate(ctx context.Context, hooks []Webhook, req *Request) *kube.StatusError {
	warnings, err := Validate(ctx, hooks, c.Services, req)
	c.warnAll(warnings)
	return err
}

func (c Caller) warnAll(warnings []string) {
	for _, w := range warnings {
		c.Warn(w)
	}
}

// Review calls the mutating webhooks of req, then the validating ones,
// sent the object as the mutating ones left it when req has one. It
// answers that object (which the caller owns when it changed) and
// whether it changed.
func (c Caller) Review(hooks []Webhook, req *Request) (obj, bool, *kube.StatusError) {
	ctx, cancel := c.context()
	defer cancel()
	mutated, changed, err := c.mutate(ctx, hooks, req)
	if err != nil {
		return nil, false, err
	}
	if req.Object != nil {
		req.Object = mutated
	}
	return mutated, changed, c.validate(ctx, hooks, req)
}

// WriteOptions are the options of a create or update as the review
// carries them: kind is CreateOptions or UpdateOptions.
func WriteOptions(kind string, dryRun bool, fieldManager, fieldValidation string) obj {
	o := obj{"kind": kind, "apiVersion": "meta.k8s.io/v1"}
	if dryRun {
		o["dryRun"] = []any{"All"}
	}
	if fieldManager != "" {
		o["fieldManager"] = fieldManager
	}
	if fieldValidation != "" {
		o["fieldValidation"] = fieldValidation
	}
	return o
}

// DeleteOptions are a delete's options (a DeleteOptions value that
// encodes to JSON) as the review carries them: without what is unset.
func DeleteOptions(opts any) obj {
	o := obj{}
	if raw, err := json.Marshal(opts); err == nil {
		_ = json.Unmarshal(raw, &o)
	}
	for k, v := range o {
		if v == nil {
			delete(o, k) // the real server's DeleteOptions omit what is unset
		}
	}
	o["kind"], o["apiVersion"] = "DeleteOptions", "meta.k8s.io/v1"
	return o
}

// ReviewEviction calls the webhooks for an eviction: a CREATE of
// pods/eviction whose object is the policy Eviction body (JSON), as the
// real server calls them; req is the request but its kind and object.
// It answers the Eviction as the mutating webhooks left it, nil when
// they did not change it (or body is no JSON object).
func (c Caller) ReviewEviction(hooks []Webhook, req *Request, body []byte) (map[string]any, *kube.StatusError) {
	eviction, err := unstructured.DecodeObjectOrNull(body)
	if err != nil || eviction == nil {
		return nil, nil
	}
	req.KindGroup, req.KindVersion, req.Kind = "policy", "v1", "Eviction"
	if v, ok := strings.CutPrefix(unstructured.String(eviction, "apiVersion"), "policy/"); ok {
		req.KindVersion = v
	}
	req.Object = eviction
	c.nullCreationTimestamp(eviction)
	mutated, changed, serr := c.Review(hooks, req)
	if serr != nil || !changed {
		return nil, serr
	}
	return mutated, nil
}
