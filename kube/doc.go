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
//   - What a type does not declare is never erased by a write of it.
//     [Client.Update] (and the Update of Status and SubResource) reads the
//     stored object first, one GET more, unless the type holds everything
//     ([Unstructured], [ConfigMap], [Secret], [Lease], [Scale]), and
//     replaces only the fields the type declares; an update it cannot
//     line up (a list of partial structs grown, shrunk or reordered) is
//     refused with an [*UndeclaredFieldsError] naming the fields, nothing
//     written. The stored object is read as JSON and never decoded into
//     the type. Keeping costs the GET; refusing would cost the same GET,
//     and a program that declares only what it reads could then never
//     update. client-go's typed Update sends its struct as it is and
//     erases what the struct lacks: here it does not, on purpose.
//     [Client.Replace] writes a type that holds everything without the
//     read (leader election's Lease).
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
//   - A write that meets an object deleted since it was read is
//     [IsNotFound] on every version kubeloop supports: 1.36 and 1.37
//     answer it 404, 1.33 a 409 Conflict naming storage's "invalid
//     object" (Code: 4) with an empty stored uid, which is NotFound and
//     not [IsConflict].
//   - [MergeFrom] makes a patch of what an object changed since it was
//     read, sent without its resourceVersion (unless asked), so a write
//     from a stale read does not Conflict and does not undo fields it
//     left alone. A [Patch] literal, Patch{Type, Data}, is sent as is.
//   - List, the writes and the deletes take their options one by one, in
//     one style (List: [ListOption]; Create, Update, Replace, Patch,
//     Apply: [WriteOption]; Delete: [DeleteOption]; DeleteAllOf:
//     [DeleteAllOfOption]), as controller-runtime's do. The options
//     struct of each is itself an option, so a call that passes one
//     reads as it always did; no option is the defaults; options apply
//     in order, the last that sets a field winning (flags, once set,
//     stay set), and label and field selectors from several are ANDed.
//     ListEach and Watch take a [ListOptions] ([NewListOptions]).
//   - A watch is decoded event by event as the server flushes it, and a
//     [List] or [Client.ListEach] item by item; neither is buffered whole.
//     Each object is decoded in one pass over its JSON, by plans per Go
//     type that the Client keeps (internal/jsondec); programs do not link
//     encoding/json's decoder through this package. A type with its own
//     UnmarshalJSON gets the bytes of its value alone; a struct with a
//     ",string" field cannot be decoded (an error names it).
//   - Keys match as Kubernetes matches them (sigs.k8s.io/json, client-go's
//     decoder): exactly. A member whose key is not a field's json name
//     byte for byte ("Replicas", or "replicaſ" with a long s, for
//     "replicas") is an unknown field, dropped, where encoding/json would
//     fold it onto the field: a custom resource that keeps unknown fields
//     cannot smuggle a value past its schema into a typed object, a
//     cache, a list, a watch event or [Unstructured]'s metadata. A key
//     given twice is decoded twice, in order (the last scalar wins, as in
//     client-go's non-strict decoding; the server never sends one), but a
//     list's items given twice are refused.
//     Otherwise the result is json.Unmarshal's, checked by fuzzing against
//     encoding/json on the input with those members dropped.
//   - Reads that ask ([ListOptions.SkipManagedFields], what a cache does)
//     decode objects without metadata.managedFields: skipped, never built.
//     One object may take at most [ClientOptions.MaxObjectSize] (16 MiB by
//     default, above anything etcd stores by default); a larger one ends
//     the read with an error naming it ([ErrObjectTooLarge]), having read
//     little more than the limit. One list's answer (a List, one ListEach
//     request or page, the initial events of a WatchList up to the
//     bookmark that ends them) may take at most [ClientOptions.MaxListSize]
//     (1 GiB by default), since whoever reads a list keeps it: a larger
//     one, or one that never ends, stops there with an error that names
//     the kind and the bytes read ([ErrListTooLarge]). A plain watch has
//     no such bound: each event is read and handed on alone. Garbage on a
//     watch stream ends it with an error that describes what was read.
//   - The errors this package builds never quote what the server sent (for
//     a Secret, its data) nor a credential: an answer that cannot be
//     decoded is described by its shape, kind, name and size and the path
//     of the field at fault. A [*StatusError] carries the server's message.
//   - No request waits for ever on a server that does not answer: with
//     [Config.Timeout] zero (the default), a request that is not a watch
//     fails when its answer's headers have not come within
//     [HeaderTimeout], 70 s, past kube-apiserver's own --request-timeout
//     (60 s by default, after which it answers 504 itself), so that a
//     healthy server's answer is never cut; the body that follows is
//     not bounded by it. A watch waits as long as its context: cache's
//     informers reopen one that stays silent past its timeoutSeconds.
//     Dead connections are found by TCP keepalive (see [Config.HTTPClient]).
//   - Connections per server are bounded: requests go over HTTP/1.1, one
//     connection each while in flight, at most [Config.MaxConnections]
//     at once (64 by default: [DefaultMaxConnections]); a request beyond
//     waits for one to come free, within its context. All 64 are kept
//     when idle, so a controller's workers reuse theirs: 50 workers
//     reading and writing in turn on kubetest over loopback opened 60 to
//     63 connections for 2,000 reconciles (912 when 25 were kept), and
//     500 concurrent Gets opened 64 and ran about 700 goroutines (500
//     and about 2,000 unbounded). Each open watch holds a connection of
//     its own besides, from a pool without bound that requests do not
//     use: a cache holds one per kind (per namespace and shard when
//     limited to some), and cannot starve requests of connections.
//     (client-go bounds the same by multiplexing on one HTTP/2
//     connection; see [Config.HTTPClient] for why not here.)
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
//   - A kubeconfig the program does not trust (a Secret's) is parsed with
//     [ParseKubeconfigWith]: under the zero [KubeconfigPolicy], a context
//     whose cluster or user has an exec plugin, names a file (tokenFile,
//     client-certificate, client-key, certificate-authority), a plain
//     http server, insecure-skip-tls-verify or a proxy-url is an error
//     naming the field, before any command runs or any file is looked
//     at; each is allowed by name. No client of this package uses the
//     environment's proxy (HTTP_PROXY): a Config's proxy is its ProxyURL.
//
// Usage:
//  1. Load a [Config] with [LoadConfig] (or build one by hand, or take one
//     from kube/kubetest).
//  2. Make a [Client] with [NewClient].
//  3. Call Get, List, Create, Update, Patch, Apply, Delete and Watch with
//     your own types, [Unstructured] or [PartialObjectMetadata]; for a
//     read, change, write: patch := kube.MergeFrom(obj), change obj,
//     c.Patch(ctx, obj, patch) (or c.Status().Patch). Every write,
//     Apply among them, takes options of its own one by one
//     ([WriteOption]: [DryRunAll], [FieldOwner], [FieldValidation],
//     [ForceOwnership], or a [WriteOptions] struct) over the client's; a
//     delete takes [DeleteOption]s ([PropagationPolicy],
//     [GracePeriodSeconds], [Preconditions], [DryRunAll], or a
//     [DeleteOptions] struct), and DeleteAllOf [DeleteAllOfOption]s
//     (those, [InNamespace], [MatchingLabels], [MatchingFields]). No
//     option is the defaults.
package kube
