// SPDX-License-Identifier: Apache-2.0

// Package nscontroller is the namespace controller kubetest runs inside
// its server, as kube-controller-manager's namespace controller does it
// for what clients can see. It knows the server by a [Store]: [Sync] is
// one pass over a deleting namespace, [Conditions] the status it writes,
// [MarkTerminating] what the namespace's own DELETE does to it.
// Nothing here keeps state; the server says when the controller runs.
//
// The lifecycle of a namespace, as kube-apiserver and the controller
// give it (step 1 is the server's, with [MarkTerminating]):
//
//  1. DELETE marks the namespace: deletionTimestamp (without
//     deletionGracePeriodSeconds), status.phase Terminating, spec.finalizers
//     ["kubernetes"] kept; the answer is that object, 200. Creates in it are
//     refused (create.go, 403 "unable to create new content in namespace X
//     because it is being terminated").
//  2. The controller deletes its content, pods first (and nothing else
//     while pods remain, when it writes its conditions all False, counting
//     nothing), each object in the background (so objects with finalizers
//     are marked deleting and stay).
//  3. It writes five status conditions, each False with its "all is well"
//     reason, or True for content and finalizers remaining (with the counts
//     by resource and by finalizer in the real messages).
//  4. When nothing remains it finalizes the namespace (the "kubernetes"
//     entry leaves spec.finalizers, as PUT namespaces/X/finalize does), and
//     the namespace goes once no finalizer is left.
//
// The real controller waits 5 s before it starts and polls while content
// remains; here each step happens in the request that makes it possible.
package nscontroller
