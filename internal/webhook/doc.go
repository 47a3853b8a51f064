// SPDX-License-Identifier: Apache-2.0

// Package webhook is the engine of the admission and conversion webhook
// server that package manager offers: a TLS server whose certificate
// follows the files on disk, the AdmissionReview and ConversionReview wire
// types, the handlers that decode, answer and bound those reviews, and the
// patch a mutating webhook answers. It knows nothing of Go types: package
// manager decodes objects into the user's types and calls these with JSON.
//
// Guarantees:
//   - TLS only, 1.2 at least, HTTP/1.1. The certificate and key are read
//     from files; [Server.Listen] fails with an error naming the path when
//     they are missing or do not match, and every handshake checks
//     whether the files changed (stat only) and serves the new pair if
//     they did, so that rotation needs no restart. A pair that fails to
//     load is logged and the previous one is served.
//   - A review is always answered. The uid of the request comes back
//     in the response; a review that cannot be read is answered with an
//     error (see [Admission] for which form), a panic in a handler with an
//     error response, never a dropped connection.
//   - Bounded: bodies are limited ([MaxAdmissionBytes],
//     [MaxConversionBytes]), and so are the bytes of the conversion
//     reviews being answered at once ([MaxConversionBytesInFlight]); a
//     handler's context ends at the timeout the API server appends to the
//     URL (?timeout=10s), or after [DefaultTimeout].
//   - Exact patches: [MutationPatch] changes only what the handler
//     changed, so fields the handler's type does not declare survive. Its
//     cost is linear in the size of the object, and it stops at the
//     request's deadline.
//   - Clean lifecycle: [New] does no I/O and starts nothing; Start blocks
//     until its context is done, drains the requests in flight (at most
//     [ShutdownTimeout]) and returns only when its goroutines have ended.
//
// Usage:
//  1. s, err := New(Options{CertDir: dir}).
//  2. s.Register("/validate-apps-v1-deployment", Admission(fn)); a
//     [Conversions] at "/convert".
//  3. Optionally s.Listen() to fail early; then s.Start(ctx), with
//     s.Started as a readiness check.
package webhook
