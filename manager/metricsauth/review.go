// SPDX-License-Identifier: Apache-2.0

package metricsauth

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// This file decides who may read the metrics: the caller's bearer token
// reviewed by the API server (a TokenReview), then what it asks for (a
// SubjectAccessReview of the non-resource URL), as kube-rbac-proxy and
// controller-runtime's authentication filter do.

// Bounds of the reviews.
const (
	// reviewTimeout bounds the two reviews of one request, as
	// controller-runtime bounds its TokenReview.
	reviewTimeout = 10 * time.Second
	// maxReviewsInFlight bounds the requests reviewed at once: a flood of
	// new tokens waits its turn instead of sending the API server as many
	// reviews at once through the manager's client.
	maxReviewsInFlight = 4
)

// authorizer serves next to the requests whose callers may get what they
// ask, and refuses the others: 401 without a valid bearer token, 403 for
// a caller the API server does not authorize.
type authorizer struct {
	api       *kube.Client
	next      http.Handler
	log       *slog.Logger
	decisions *decisions
	// slots holds a value for each review in flight.
	slots chan struct{}
}

func newAuthorizer(api *kube.Client, next http.Handler, log *slog.Logger) *authorizer {
	return &authorizer{api: api, next: next, log: log, decisions: newDecisions(), slots: make(chan struct{}, maxReviewsInFlight)}
}

func (a *authorizer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	token := bearerToken(req.Header.Get("Authorization"))
	if token == "" {
		http.Error(w, "Unauthorized: want a bearer token", http.StatusUnauthorized)
		return
	}
	verb, path := strings.ToLower(req.Method), req.URL.Path
	d, err := a.decide(req.Context(), token, verb, path)
	if err != nil {
		a.log.Error("review metrics caller", "err", err)
		http.Error(w, "could not review the caller with the API server", http.StatusInternalServerError)
		return
	}
	switch {
	case !d.authenticated:
		a.log.Debug("metrics caller refused: token not authenticated", "path", path)
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
	case !d.allowed:
		a.log.Debug("metrics caller refused: not authorized", "user", d.user, "verb", verb, "path", path)
		http.Error(w, fmt.Sprintf("Forbidden: user %q may not %s %s", d.user, verb, path), http.StatusForbidden)
	default:
		a.next.ServeHTTP(w, req)
	}
}

// bearerToken is the token of an "Authorization: Bearer TOKEN" header,
// "" for none (the scheme's case does not matter, as for the API server).
func bearerToken(header string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// decide returns what the API server decides of token's verb on path:
// cached, or reviewed now (at most maxReviewsInFlight at once, each
// within reviewTimeout). An error (the API server unreachable, the
// manager's client not allowed to review) is not cached.
func (a *authorizer) decide(ctx context.Context, token, verb, path string) (decision, error) {
	key := decisionKey{token: sha256.Sum256([]byte(token)), verb: verb, path: path}
	if d, ok := a.decisions.get(key, time.Now()); ok {
		return d, nil
	}
	select {
	case a.slots <- struct{}{}:
		defer func() { <-a.slots }()
	case <-ctx.Done():
		return decision{}, ctx.Err()
	}
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	d, err := a.review(ctx, token, verb, path)
	if err != nil {
		return decision{}, err
	}
	a.decisions.put(key, d, time.Now())
	return d, nil
}

// review asks the API server who token is, then whether that user may
// do verb on path.
func (a *authorizer) review(ctx context.Context, token, verb, path string) (decision, error) {
	tr := &tokenReview{Spec: tokenReviewSpec{Token: token}}
	if err := a.api.Create(ctx, tr); err != nil {
		return decision{}, fmt.Errorf("create TokenReview: %w", err)
	}
	if !tr.Status.Authenticated {
		return decision{}, nil
	}
	u := tr.Status.User
	sar := &subjectAccessReview{Spec: subjectAccessReviewSpec{
		NonResourceAttributes: &nonResourceAttributes{Path: path, Verb: verb},
		User:                  u.Username, UID: u.UID, Groups: u.Groups, Extra: u.Extra,
	}}
	if err := a.api.Create(ctx, sar); err != nil {
		return decision{}, fmt.Errorf("create SubjectAccessReview of user %q: %w", u.Username, err)
	}
	return decision{authenticated: true, user: u.Username, allowed: sar.Status.Allowed}, nil
}

// tokenReview is an authentication.k8s.io/v1 TokenReview: the token sent,
// whom the API server says it belongs to.
type tokenReview struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            tokenReviewSpec   `json:"spec"`
	Status          tokenReviewStatus `json:"status"`
}

type tokenReviewSpec struct {
	Token string `json:"token"`
}

type tokenReviewStatus struct {
	Authenticated bool     `json:"authenticated,omitempty"`
	User          userInfo `json:"user"`
	Error         string   `json:"error,omitempty"`
}

type userInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

func (*tokenReview) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenReview"}
}

// subjectAccessReview is an authorization.k8s.io/v1 SubjectAccessReview
// of a non-resource URL: may the user do the verb on the path.
type subjectAccessReview struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            subjectAccessReviewSpec   `json:"spec"`
	Status          subjectAccessReviewStatus `json:"status"`
}

type subjectAccessReviewSpec struct {
	NonResourceAttributes *nonResourceAttributes `json:"nonResourceAttributes,omitempty"`
	User                  string                 `json:"user,omitempty"`
	UID                   string                 `json:"uid,omitempty"`
	Groups                []string               `json:"groups,omitempty"`
	Extra                 map[string][]string    `json:"extra,omitempty"`
}

type nonResourceAttributes struct {
	Path string `json:"path"`
	Verb string `json:"verb"`
}

type subjectAccessReviewStatus struct {
	Allowed bool   `json:"allowed"`
	Denied  bool   `json:"denied,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

func (*subjectAccessReview) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "authorization.k8s.io", Version: "v1", Kind: "SubjectAccessReview"}
}
