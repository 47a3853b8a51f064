// SPDX-License-Identifier: Apache-2.0

// Package webhook is the admission and conversion webhook server of a
// controller program: a TLS server whose certificate follows the files on
// disk, validating and mutating admission webhooks for your Go types,
// conversion between the versions of a custom resource, and the
// AdmissionReview and ConversionReview wire types underneath. A [Server]
// is one runnable of a manager (manager.Options.WebhookServer), which
// starts it first and stops it last; it also runs alone.
//
// Guarantees:
//   - TLS only, 1.2 at least, HTTP/1.1. The certificate and key are read
//     from files; [Server.Listen] fails with an error naming the path when
//     they are missing or do not match, and every handshake checks
//     whether the files changed (stat only) and serves the new pair if
//     they did, so that rotation (cert-manager renewing a mounted Secret)
//     needs no restart. A pair that fails to load, or is half written, is
//     logged and the previous one is served. Or the certificate comes
//     from Options.Certificates, asked at every handshake: package
//     manager/webhook/certs makes and rotates a CA and a serving
//     certificate in a Secret and keeps the caBundles in step, with no
//     request refused across a rotation.
//   - A review is always answered. The uid of the request comes back in
//     the response; a review that cannot be read is answered with an
//     error (see [Admission] for which form), a panic in a handler with an
//     error response (code 500), never a dropped connection.
//   - Bounded memory, per review and in flight, by one mechanism for both
//     kinds of review: a review larger than its limit is refused with 413,
//     unread when it states its length, and one that would take the
//     reviews being answered at once past theirs with 429 and
//     Retry-After: 1, which the API server retries. A conversion review
//     counts its body ([Conversion.MaxRequestBytes],
//     [Conversion.MaxInFlightBytes]); an admission review, whose JSON
//     values take hundreds of bytes each once decoded, the memory
//     estimated from its body before it is decoded
//     ([AdmissionHandler.MaxMemoryBytes], 64 MiB, and
//     [AdmissionHandler.MaxInFlightBytes], 128 MiB, per handler).
//   - Deadlines: an admission review is answered by the timeout the API
//     server appends to the URL (?timeout=10s), or after
//     [DefaultTimeout], counted from its arrival: reading, decoding,
//     deciding and encoding all count, and a step still running then is
//     answered with 504 Timeout (10ms later when the handler is answering
//     at its deadline; see [Admission]). A handler's context ends at that
//     deadline.
//   - Exact patches: a [Defaulter]'s answer ([MutatingFor]) changes only
//     what it changed, so fields its type does not declare survive. The
//     patch costs time linear in the size of the object, and its work
//     stops at the request's deadline.
//   - Typed objects are read as the API server reads them: the handlers
//     of [ValidatingFor] and [MutatingFor] and the spokes of [AddSpoke]
//     decode with keys matched exactly (sigs.k8s.io/json's rule, where
//     encoding/json folds case), so that a member that is another
//     spelling of a field ("replicaſ", "Replicas", "statuſ"), which a
//     custom resource that keeps unknown fields stores as such, is an
//     unknown field: never validated, defaulted or converted as the field.
//   - Paths are exact: a request for a path nobody registered is a 404.
//   - Clean lifecycle: [New] does no I/O and starts nothing; Start blocks
//     until its context is done, drains the requests in flight (at most
//     [ShutdownTimeout]) and returns only when its goroutines have ended.
//     [Server.Listen] may come early (to learn the port the system chose
//     with a negative Port): a later Listen, the manager's included, keeps
//     that socket, and Start serves on it.
//   - Quiet while it starts: until Options.Certificates has a certificate
//     (package manager/webhook/certs reading or making it), handshakes are
//     refused and logged at debug level, since readiness already says the
//     server is not ready; other handshake failures are warnings.
//   - No panics from zero values: every exported type's zero value works
//     or returns an error (a zero [Server] routes but its Listen and Start
//     answer "webhook.Server: use webhook.New"); a typed nil is treated as
//     nil: a nil [Server], [AdmissionHandler] or [Conversion] answers 500,
//     a nil [DefaulterFunc] an error. [Server.Register] panics on a bad
//     path or a nil handler, as http.ServeMux does. TestZeroValues walks
//     the exported API for this.
//
// Usage:
//  1. s, err := New(Options{CertDir: dir}) (the zero Options listen on
//     :9443 with the certificate in [DefaultCertDir], as
//     controller-runtime's).
//  2. RegisterValidator[Widget](s, v) and RegisterDefaulter[Widget](s, d)
//     for a [Validator] and a [Defaulter] of your type, at the paths
//     controller-runtime uses ([ValidatingPath], [MutatingPath]); a
//     [Conversion] with its spokes ([AddSpoke]) at [ConversionPath];
//     s.Register(path, Admission(fn)) for a handler of the raw
//     [AdmissionRequest]. To change a handler's memory limits, set them
//     on the [AdmissionHandler] that [ValidatingFor], [MutatingFor] or
//     [Admission] returns before registering it.
//  3. Set manager.Options.WebhookServer to s: the manager's Start has it
//     Listen first of all (a port in use fails Start before anything
//     runs), starts it before the caches and adds its
//     [Server.StartedChecker] to readiness. Alone: s.Listen() to fail
//     early, then s.Start(ctx). Either way, s.Listen() before and
//     s.Addr() tell the port.
package webhook
