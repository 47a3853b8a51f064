// SPDX-License-Identifier: Apache-2.0

// Package kube talks to a Kubernetes API server over HTTP and JSON with the
// standard library alone: configuration (kubeconfig, in-cluster, exec
// credential plugins), the object model, REST calls, watch streams,
// discovery, errors, label and field selectors, and the shard selectors of
// the server's sharded list and watch.
//
// Guarantees:
//   - Objects are plain Go structs. A type satisfies [Object] by embedding
//     [ObjectMeta] (tagged `json:"metadata"`) and [TypeMeta], and by stating
//     its identity once with a GroupVersionKind method. Fields a type does not
//     declare are dropped when decoding, which is what keeps caches small.
//   - Every error the server returns as a Status body is a [*StatusError];
//     [IsNotFound], [IsConflict] and friends look through wrapping.
//   - A 404 is [IsNotFound] only when a Kubernetes API server gave it: a
//     Status, or the plain "404 page not found" of its mux for a resource
//     it does not serve (a custom resource whose CRD was deleted). Every
//     call is made after discovery has read /api and /apis, which every
//     Kubernetes API server serves; a server that answers them 404 (a
//     kubeconfig with the wrong URL or port, a wrong proxy path) gives a
//     [*NotKubernetesError] naming the server and the path:
//     [IgnoreNotFound] does not hide it, so nothing reads it as "gone".
//     A server swapped for another after discovery is not noticed.
//   - [MergeFrom] makes a patch of what an object changed since it was
//     read, sent without its resourceVersion (unless asked), so a write
//     from a stale read does not Conflict and does not undo fields it
//     left alone. A [Patch] literal, Patch{Type, Data}, is sent as is.
//   - A watch is decoded event by event as the server flushes it, and a
//     [List] or [Client.ListEach] item by item; neither is buffered whole.
//     Each object is decoded in one pass over its JSON, with the result
//     json.Unmarshal gives (internal/jsondec, checked against encoding/json
//     by fuzzing), by plans per Go type that the Client keeps; programs do
//     not link encoding/json's decoder through this package. A type with
//     its own UnmarshalJSON gets the bytes of its value alone; a struct
//     with a ",string" field cannot be decoded (an error names it).
//   - Reads that ask ([ListOptions.SkipManagedFields], what a cache does)
//     decode objects without metadata.managedFields: skipped, never built.
//     One object may take at most [ClientOptions.MaxObjectSize] (16 MiB by
//     default, above anything etcd stores by default); a larger one ends
//     the read with an error naming it ([ErrObjectTooLarge]), having read
//     little more than the limit. Garbage on a watch stream ends it with an
//     error that describes what was read.
//   - The errors this package builds never quote what the server sent (for
//     a Secret, its data) nor a credential: an answer that cannot be
//     decoded is described by its shape, kind, name and size and the path
//     of the field at fault. A [*StatusError] carries the server's message.
//   - A [Watcher] is read by its caller's goroutine (net/http keeps its
//     connections' goroutines). The only goroutines of this package are
//     one per discovery refresh and one per credential plugin run, so that
//     callers sharing one can each give up at their own deadline; each
//     ends with its refresh or run, which is bounded in time.
//   - Every exported type's zero value works or returns an error (a
//     zero or nil [Client] answers every call with "kube.Client: use
//     kube.NewClient"; a [WatchEvent] a caller built decodes); a typed nil
//     is treated as nil: an object that is a nil pointer is refused with
//     an error, and a nil pointer's own methods return zero values or an
//     error. TestZeroValues walks the exported API for this.
//   - A [Config] never prints a secret: tokens, passwords, key data, the
//     exec plugin's arguments and environment values and the user info of
//     URLs are hidden from every fmt verb, from slog and from
//     encoding/json. A credential goes to the configured server only, and
//     no redirect is followed.
//
// Usage:
//  1. Load a [Config] with [LoadConfig] (or build one by hand, or take one
//     from kube/kubetest).
//  2. Make a [Client] with [NewClient].
//  3. Call Get, List, Create, Update, Patch, Apply, Delete and Watch with
//     your own types, [Unstructured] or [PartialObjectMetadata]; for a
//     read, change, write: patch := kube.MergeFrom(obj), change obj,
//     c.Patch(ctx, obj, patch) (or c.Status().Patch). A write takes
//     options of its own ([WriteOptions]: [DryRunAll], [FieldOwner],
//     [FieldValidation], [ForceOwnership]) over the client's.
package kube
