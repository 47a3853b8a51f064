// SPDX-License-Identifier: Apache-2.0

// Package kubetest is an in-process Kubernetes API server that speaks the
// real wire protocol, for tests and demos: the net/http/httptest of
// kubeloop. Its answers are checked against requests and responses
// captured from kube-apiserver 1.36 (testdata/wire); where it knowingly
// differs from the real server, DIFFERENCES.md says so.
//
// Guarantees:
//   - Any resource: namespaces, configmaps, secrets, serviceaccounts,
//     services, pods, events (v1 and events.k8s.io/v1, one storage seen
//     through both, fields converted as the real server converts them), resourcequotas,
//     limitranges, endpoints, persistentvolumeclaims, persistentvolumes,
//     replicationcontrollers, leases, deployments, replicasets,
//     statefulsets, daemonsets, controllerrevisions, jobs, cronjobs,
//     ingresses, and every other kind kube-apiserver 1.37.2's discovery
//     lists (rbac, storage, policy, autoscaling v2 and v1, ...: stored
//     and validated against their captured schemas, internal/kinds), and
//     CustomResourceDefinitions
//     created through the API, whose resources appear in discovery at once
//     and vanish with them; their objects are stored at the storage
//     version and, with conversion strategy Webhook, converted by the
//     CRD's webhook for a request in another version, as the real server
//     converts them (internal/conversion; a write's conversion is made with
//     the server's lock held). Discovery lists what the real server lists.
//     A new server holds what a new kube-apiserver
//     holds: the system namespaces, service/kubernetes, and the API
//     server's ConfigMap and Lease in kube-system. Self, subject and local
//     access reviews and SelfSubjectRulesReviews (kubectl auth can-i,
//     --list) are answered from [Server.Deny], SelfSubjectReviews (kubectl
//     auth whoami) and TokenReviews from the users' names and uids,
//     Bindings (also POSTed to pods/NAME/binding) assign pods to nodes, ComponentStatuses are fixed; none of
//     these is stored.
//   - Built-in objects defaulted as kube-apiserver 1.37 defaults them (a
//     Deployment's strategy, a container's imagePullPolicy, a Pod's
//     tolerations and QoS class...), checked against objects captured
//     from the real server.
//   - Real semantics where clients depend on them: one resourceVersion
//     counter for everything, uid, creationTimestamp, generateName,
//     generation, the status and scale subresources (a Scale written by
//     update, patches and server-side apply; and pods/log, empty
//     as for a pod no node runs), finalizers and
//     deletionTimestamp (with the generation bump of a deletion),
//     optimistic concurrency, managedFields, and Status errors with the
//     real server's codes, reasons and messages.
//   - Writes refused or accepted as the real server's: a Pod or a
//     workload's pod template without containers (422, also in a dry
//     run), RBAC names as path segments, a dry-run create that carries a
//     resourceVersion (accepted, answered with it), the create of a name
//     whose object is being deleted ("object is being deleted: ..."),
//     a status write's metadata kept (and recorded) as the real
//     status strategies keep it, and a CSR's conditions written through
//     its approval subresource and validated as the real server does.
//   - TokenRequests (serviceaccounts/NAME/token) answered as the real
//     server answers them; their tokens authenticate as the service
//     account until they expire or it is deleted. No list of issued
//     tokens is kept: a token carries its claims, signed.
//   - Discovery lists every subresource the real server lists, exec and
//     proxy included, which answer as the real server does without a
//     node; pods/ephemeralcontainers, pods/resize and
//     replicationcontrollers/scale are written as the real server writes them.
//   - What kube-controller-manager's garbage collector and namespace
//     controller do, done by the write that sets it off, so that a test
//     sees it when the write returns, without polling or sleeping:
//     dependents of a deleted owner deleted (propagationPolicy
//     Background), orphaned (Orphan, the orphan finalizer) or awaited
//     (Foreground, the foregroundDeletion finalizer held while a
//     blockOwnerDeletion dependent exists), dangling owner references
//     collected; a deleted namespace Terminating, creates in it refused
//     (403), its content deleted, its status conditions written, and then
//     finalized (also by PUT namespaces/NAME/finalize) and gone.
//     Options.DisableGarbageCollection turns the collector off.
//   - Admission webhooks called as kube-apiserver 1.36 and 1.37 call them
//     (internal/admission): the Validating- and
//     MutatingWebhookConfigurations' webhooks that match a client's create,
//     update, patch, apply, delete (of one object or a collection) or
//     eviction (by rules, scope, namespaceSelector
//     and objectSelector) are sent an AdmissionReview (v1 or v1beta1) at
//     their url, or at the address Options.WebhookServices gives their
//     service, trusting their caBundle, within timeoutSeconds; mutating
//     ones in order with their JSON patches applied (and IfNeeded ones
//     reinvoked), validating ones after; their warnings become Warning
//     headers, and a denial, a failed call (unless failurePolicy Ignore)
//     or a timeout fails the request with the real server's status and
//     text. No webhook is called with the server's lock held. A
//     configuration kubetest cannot honour (matchConditions) is refused
//     when written.
//   - Request bodies in JSON, YAML, and for every built-in kind (each
//     kind of client-go's scheme, subresource kinds such as Scale,
//     Eviction, Binding and TokenRequest included, and CRDs and
//     APIServices) protobuf, as kubectl
//     and client-go's typed clients send them; answers, lists, errors
//     and watch events in protobuf when the Accept header prefers it, as
//     the real server writes them (Tables stay JSON; custom resources
//     answer 406 and 415 to protobuf, except the metadata projection).
//   - Schemas as the real server has them: /openapi/v3 (index and
//     group-version documents, hashed and cached for good) and
//     /openapi/v2 for every served kind, built-in ones captured from
//     kube-apiserver 1.37 and every CRD's from its openAPIV3Schema;
//     all in JSON and in protobuf (gnostic's openapi_v2.Document and
//     openapi_v3.Document, the real server's bytes for the same JSON);
//     /openapi/v2 in protobuf is what kubectl explain
//     --output=plaintext-openapiv2, client-go's OpenAPISchema and
//     kubectl's validation of a List ask for. The
//     same schemas decide what a write does: type errors of built-in
//     kinds (400, the Go decoder's words), unknown and duplicate fields
//     by ?fieldValidation= (Strict 400, Warn (the default) a Warning
//     header each, Ignore), pruning of unknown fields, and for custom
//     resources the structural schema validation (422 with the real field
//     paths and messages, ratcheting on updates), defaults and the
//     refusal of non-structural CRDs. CEL rules are not evaluated.
//   - Server-side apply and managedFields as the real field manager keeps
//     them, from the same schemas: lists merged and owned by their type
//     (atomic, set, map by its keys) and maps by theirs, one entry per
//     manager with per-entry ownership (k:{"type":"Ready"}), conflicts
//     that name the entry, pruning of what a manager stops applying,
//     updates that take what they change, managedFields written by
//     updates and patches ([{}] clears them), and kubectl's move from
//     client-side to server-side apply.
//   - Strategic merge patches of built-in kinds merged as the real
//     server merges them: lists by the schema's merge keys, in its
//     order, with $patch, $setElementOrder, $retainKeys and
//     $deleteFromPrimitiveList carried out and never stored.
//   - Lists with label and field selectors, limit and continue (pages are
//     consistent with the first), resourceVersion and
//     resourceVersionMatch, and the PartialObjectMetadata projection.
//   - Tables, as kubectl get asks for them (Accept
//     application/json;as=Table;v=v1;g=meta.k8s.io, or v1beta1): the real
//     server's columns (with the -o wide ones at priority 1) and cells for
//     every built-in kind and for CustomResourceDefinitions, the
//     additionalPrinterColumns of custom resources (kubectl's JSONPath),
//     includeObject, paged lists and Table watches.
//   - Sharded list and watch (shardSelector and shardInfo) as 1.37 serves
//     them (1.36 as Options.Minor 36, its pages counting the remaining
//     items) with the ShardedListAndWatch gate on, or ignored as with the gate
//     off (Options.DisableShardedListAndWatch).
//   - Acts as an older minor on request (Options.Minor, 1.33 to the
//     newest, internal/minor): its /version, its WatchList gate (1.33 refuses
//     sendInitialEvents with the real 422), no shard selector before
//     1.36 (the parameter ignored), and only the built-in resources it
//     serves by default in discovery, OpenAPI and the API; so a test
//     runs a client's fallbacks without a cluster of that release. As
//     1.33 it also gives the answers of the real 1.33.13 that the wire
//     scenarios check (TestKubetestOldest runs them all): field errors'
//     values in Go syntax, its custom resource validation wording,
//     decode errors without embedded structs, its ServiceAccount and
//     Deployment tables, its CSR, TokenRequest, SelfSubjectRulesReview
//     and custom resource status answers.
//   - Watches as chunked JSON, flushed per event: resumable from a
//     resourceVersion within a bounded history (410 Expired beyond it),
//     bookmarks, timeoutSeconds, WatchList (sendInitialEvents), and
//     selections that objects enter (ADDED) and leave (DELETED).
//   - Bounded memory: each resource keeps Options.HistorySize events; a
//     watch more than Options.WatchBufferSize events behind its client is
//     closed, as the real watch cache closes slow watchers.
//   - No goroutine outlives its request. [New] starts none; each request
//     of the in-process transport runs in one goroutine that ends with the
//     response, and every timer (bookmarks, timeouts, delays) belongs to a
//     request. Tests can run inside testing/synctest bubbles, where a
//     one-minute bookmark takes no real time.
//   - Fault injection: fail the next requests ([Server.FailNext]), delay
//     them ([Server.Delay]), deliver watch events late
//     ([Server.LagWatches]), cut watches ([Server.CutWatches]), corrupt
//     them ([Server.InjectWatchGarbage]), forget history
//     ([Server.Compact]), end every watch in 410 Expired
//     ([Server.ExpireWatches]), send a list without end
//     ([Server.EndlessLists]), hold watches open in silence
//     ([Server.SilenceWatches]), deny a user a verb ([Server.Deny]), and count
//     requests ([Server.Counts]) to prove there is no relist storm.
//   - The permissions a program needs, from what it asked: [Server.Roles]
//     and [Server.ClusterRole] write the smallest RBAC roles that allow
//     every request a user made (an apply that creates asks create too,
//     as kube-apiserver's authorizer does). cmd/widget and cmd/mirror ship
//     their rbac.yaml made this way, and the integration suite runs them
//     on kube-apiserver with those roles alone.
//
// Ownership: maps returned by the seeding methods ([Server.Create],
// [Server.Get], ...) are fresh copies the caller owns. Stored objects are
// immutable byte slices shared by lists and watches; nothing a caller holds
// aliases them.
//
// Cost: one mutex guards the storage. A write costs the JSON encoding of
// the object, a field by field comparison with its previous version for
// managedFields, plus O(watchers of its resource); a list costs O(objects of
// the resource), plus O(events since) for a list at a past version. A
// Table costs the JSON decoding of every object it prints. A PATCH is
// computed without the lock (a strategic merge in O(size of object and
// patch), lists merged by key through an index) and takes it to commit,
// computing again if the object changed meanwhile. The in-process
// controllers cost a write a few map lookups when its object has no owner
// references and its namespace is not terminating; deleting an owner costs
// O(its dependents), and a write in a terminating namespace a pass of the
// namespace controller, O(objects stored).
//
// Usage:
//  1. s := kubetest.New(kubetest.Options{}) and defer s.Close().
//  2. Take s.Client(opts), a client without rate limit for tests that
//     count requests, or hand s.Config() to a kube client (in-process:
//     both work inside synctest),
//     or l, _ := s.Listen(true) and use l.Config() (a real TLS socket), or
//     serve s as an http.Handler.
//  3. Seed with s.Create, inject faults, and assert on s.Counts().
//
// # Where each part lives
//
// The server itself is package kubetest: the Options and Server API
// (server.go, seed.go, faults.go, faults_stream.go, watchlag.go), what
// names the minors it acts as (minor.go), the storage with its one
// resourceVersion counter and bounded history (store.go, object.go), the
// routing and the request paths of every verb (handler.go,
// requestinfo.go, create.go, read.go, update.go, patch.go, apply.go,
// delete.go, watch.go, shard.go, table.go), what a write is checked
// against (fieldvalidation.go, customresource.go), the kinds served and
// discovery (resource.go, crd.go, discovery.go, openapi.go), the hooks
// by which kinds, controllers and admission act on the store
// (namespace.go, service.go, scale.go, scaleapply.go, eviction.go,
// binding.go, podlog.go, componentstatus.go, csr.go, tokenrequest.go,
// podsub.go, auth.go, review.go, admit.go, admit_write.go,
// admit_delete.go, controllers.go, bootstrap.go), and the transports
// (transport.go, listener.go, pki.go).
//
// Everything else is in subpackages of kube/kubetest/internal/, each one
// concern with its package doc, knowing the server by a small interface
// it declares or not at all:
//   - what a cluster's controllers and admission do: controllers (which
//     runs gc and nscontroller), ctlstate (their queue and owner index);
//     admission (the webhooks around a client's writes); conversion (a
//     CRD's conversion webhook); strategy (the generic REST strategies and
//     what kinds add), defaulting, autoscaling, events, clusterip, crd,
//     scale, disruption, binding, podlog, componentstatus, csr (approval
//     and conditions), satoken (TokenRequests and the service account
//     tokens they issue), podsub (pods' connect subresources, ephemeral
//     containers and resize), authz and review; bootstrap (what a new
//     server holds); minor (what changes with the minor a server acts as);
//   - the kinds and their schemas: kinds (the built-in kinds, a resource's
//     description, the registry), schema, validation, fielderr,
//     fieldvalidation, fieldmanager, strategicmerge, patch, unstructured,
//     quantity;
//   - the wire: encode (objects in the real server's order), media
//     (content negotiation and bodies), protobuf (bodies, answers and watch
//     frames of every built-in kind), requestinfo, listopts, deleteopts, watchenc,
//     apierr (the Status errors), discovery, openapi (and openapipb, the
//     documents in protobuf), table, jsonpath, shardexpr, faults (the
//     rules of the faults a test injects), inprocess (the in-process round
//     trip), listen (the loopback socket), pki; testjson for tests.
//
// For tests of other TLS servers (a webhook server, a server a client must
// verify), [NewCA] makes a certificate authority that issues serving and
// client certificates, the one [Server.Listen] uses for itself.
package kubetest
