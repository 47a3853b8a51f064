// SPDX-License-Identifier: Apache-2.0

// Package certs makes, rotates and serves the certificates of a webhook
// server, and keeps the caBundle of the program's webhook configurations
// and CRD conversion webhooks in step with them: a webhook needs no
// cert-manager and no mounted files. Everything is made with the standard
// library (ECDSA P-256 keys) and kept in one Secret, which every replica
// shares, or in a directory.
//
// Guarantees:
//   - One Secret, shared: each replica watches it (by name) and serves the
//     certificate it holds, picking up a new one at the next TLS handshake,
//     without a restart. A replica that finds it missing creates it;
//     replicas that do so at once race on the create, and the losers read
//     the winner's. Every write is an update at the resourceVersion read,
//     so that concurrent rotations cannot overwrite each other: the
//     loser decides again on what the winner wrote. Any replica may
//     rotate, since each decides from the Secret and the time alone. A
//     program that runs as one process may keep the four files in a
//     directory instead (Options.Dir), with the same rotations.
//   - Rotation before expiry: a CA lives [DefaultCAValidity] (10 years)
//     and is replaced a third of its life before its end; a serving
//     certificate lives [DefaultValidity] (1 year, never beyond its CA)
//     and is replaced a third of its life before its end (cert-manager's
//     default of renewing at two thirds). Both are configurable
//     ([Options]). A certificate that is unusable (missing, expired,
//     its key not matching, or signed by no CA of the bundle) is replaced
//     at once.
//   - No request refused across a rotation: the caBundle holds the old
//     CA and the new one while either may be in use. A new CA is added to
//     the bundle first, and signs the served certificate only after
//     Options.Overlap (1 hour), by which time the leader has injected the
//     bundle and the API server has read it; the previous CA leaves the
//     bundle only once the certificate it signed has been out of the
//     Secret for Overlap, by which time every replica serves the new one.
//     A serving certificate rotated under the same CA needs no bundle
//     change at all.
//   - caBundles kept by the leader: an [Injector] (leader only) watches
//     each named ValidatingWebhookConfiguration,
//     MutatingWebhookConfiguration and CRD by name, and sets every
//     caBundle of its webhooks (a CRD's spec.conversion.webhook) to the
//     Secret's CAs at start, whenever they change, and whenever anything
//     else changes them; objects created later are injected when they
//     appear. It writes nothing else, with optimistic concurrency.
//   - Ready only when serving: the webhook server's readiness check
//     fails until its Certs has read (or made) the Secret, so that a
//     Service sends it no request it cannot answer.
//   - Bounded and quiet: one watch per object named, one timer per
//     replica set to the next rotation (and an hourly look); API failures
//     back off from 1s to a minute and are logged, never fatal.
//
// Permissions: get, list, watch, create and update of the Secret in its
// namespace (list and watch by metadata.name, so resourceNames can
// narrow all but create); for the leader, get, list, watch and update of
// the webhook configurations and CRDs named.
//
// Usage:
//
//	client, err := kube.NewClient(cfg, kube.ClientOptions{}) // cfg from kube.LoadConfig
//	kc, err := certs.New(client, certs.Options{
//		Secret:  kube.Key{Namespace: "widgets-system", Name: "widgets-webhook-certs"},
//		Service: kube.Key{Namespace: "widgets-system", Name: "widgets-webhook"},
//		ValidatingWebhookConfigurations: []string{"widgets"},
//	})
//	srv, err := webhook.New(webhook.Options{Certificates: kc}) // runs kc.Start, serves kc's certificate
//	mgr, err := manager.New(cfg, manager.Options{WebhookServer: srv, LeaderElection: ...})
//	err = mgr.Add(kc.Injector())                                // the leader keeps the caBundles
//	err = mgr.Start(ctx)
//
// Binary size: a program that does not import this package links none of
// it; package webhook knows a certificate source only as the small
// interface webhook.CertificateSource.
package certs
