// SPDX-License-Identifier: Apache-2.0

// Package metricsauth serves a manager's metrics over HTTPS to the
// callers the API server authenticates and authorizes: what
// controller-runtime's metrics server does with SecureServing and its
// filters.WithAuthenticationAndAuthorization filter, which kubebuilder
// scaffolds (--metrics-bind-address=:8443 --metrics-secure=true). A
// manager's own metrics server (manager.Options.MetricsBindAddress,
// ":8080" by default) serves plain HTTP to anyone who reaches it; this
// [Server] takes its place.
//
// Guarantees:
//
//   - Authenticated: a request needs "Authorization: Bearer TOKEN"; the
//     token is sent to the API server in a TokenReview (audiences left to
//     the API server's own), and a token it does not authenticate, or no
//     token, is answered 401.
//   - Authorized: the user the token is (name, uid, groups, extra) is
//     asked about in a SubjectAccessReview of the non-resource URL: the
//     request's path and its method in lower case (GET /metrics is "get"
//     on "/metrics"), which RBAC grants with a ClusterRole rule
//     nonResourceURLs ["/metrics"], verbs ["get"]. A user it does not
//     allow is answered 403; a review that fails (the API server
//     unreachable, the manager not allowed to review) 500, logged at
//     error level.
//   - Bounded cost: decisions are kept, by the token's SHA-256 (no token
//     is kept) and the verb and path, a minute when the caller was let
//     in (controller-runtime keeps a token a minute, an authorization
//     five) and 30 seconds when refused (its time for a denial): a
//     scraper every 15 seconds costs two reviews a minute. At most 1024
//     decisions are kept (some 150 KB), the one expiring first making
//     room; at most 4 reviews are in flight, each pair within 10
//     seconds, so that callers with new tokens wait their turn rather
//     than send the API server as many reviews at once.
//   - TLS only, 1.2 at least, HTTP/1.1. The certificate comes from
//     files (Options.CertDir, read by Listen and again at the first
//     handshake after they change, as the webhook server reads its own)
//     or from a source asked at every handshake (Options.Certificates: a
//     certs.Certs of package manager/webhook/certs, which the server's
//     Start runs). Until the source has a certificate, handshakes are
//     refused and logged at debug level.
//   - One server: [New] fails when the manager serves its metrics itself,
//     so that they are not also served over plain HTTP; set
//     manager.Options.MetricsBindAddress to "0".
//   - Clean lifecycle: New does no I/O; a manager has the server Listen
//     first thing in its Start (an address in use or a missing
//     certificate fails Start), starts it before the caches and stops it
//     after them, on every replica, leader or not; Start waits up to 10
//     seconds for the scrapes in flight.
//
// Permissions: the manager's ServiceAccount needs create on
// tokenreviews.authentication.k8s.io and
// subjectaccessreviews.authorization.k8s.io (the ClusterRole
// system:auth-delegator has both); the scraper's, get on the
// nonResourceURL /metrics (kubebuilder's ClusterRole metrics-reader).
//
// Binary size: a program that does not import this package links none
// of it; package manager knows it only as a runnable with a Listen
// method, and hands it the metrics handler ([Manager]).
//
// Usage:
//
//	mgr, err := manager.New(cfg, manager.Options{MetricsBindAddress: "0"}) // no plain HTTP server
//	ms, err := metricsauth.New(mgr, metricsauth.Options{CertDir: "/tmp/k8s-metrics-server/metrics-certs"}) // :8443
//	err = mgr.Add(ms)
//	err = mgr.Start(ctx)
package metricsauth
