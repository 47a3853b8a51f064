// SPDX-License-Identifier: Apache-2.0

// Package conversion calls the conversion webhook of a
// CustomResourceDefinition whose spec.conversion.strategy is Webhook, as
// kube-apiserver calls it, and validates spec.conversion as it does.
// kubetest stores a custom resource at its CRD's storage version: a write
// in another version is converted to it ([Webhook.ToStorage]), and what a
// client reads in another version (a get, each item of a list, each watch
// event, the answer of a write, the objects admission webhooks are sent)
// is converted from it ([Webhook.Read]).
//
// Guarantees:
//   - The review is the real server's: a ConversionReview of
//     apiextensions.k8s.io/v1 or v1beta1 (the first of the CRD's
//     conversionReviewVersions kubetest speaks), a new uid, the
//     desiredAPIVersion, and one object, without its resourceVersion (a
//     list's items go one review each, as the real server converts each
//     object it reads). An object already at the desired version is never
//     sent.
//   - The call is an admission webhook's (admission.Post): the CRD's url,
//     or its service at the address a resolver gives with the certificate
//     checked for name.namespace.svc, trusting its caBundle, with
//     ?timeout=30s and a deadline of 30 s, retries included.
//   - The answer is checked as the real server checks it: for a v1 review
//     its kind and uid; result.status Success (else its message is the
//     error); one converted object, at the desired apiVersion, of the same
//     kind, name, namespace and uid. Of its metadata only labels and
//     annotations are taken (strings only); the rest is the original's.
//   - Errors are the real server's texts, "conversion webhook for
//     GROUP/VERSION, Kind=KIND failed: ..." and its siblings, answered as
//     a 500: without a reason for a write, and for a read as the server's
//     minor does (1.37: the stored object called corrupt, 500
//     InternalError, or 500 StorageReadError in a list; before: as a
//     write). A nil *Webhook converts nothing, so that a version without
//     a webhook costs the server one nil check.
//   - [Validate] refuses what the real server refuses in spec.conversion,
//     with its field paths and texts (1.37's: a list value as JSON).
//   - Nothing here holds state between calls or locks; the server calls
//     the webhook for a write with its lock held (see
//     kube/kubetest/DIFFERENCES.md, "Custom resources").
package conversion
