// SPDX-License-Identifier: Apache-2.0

// Package admission calls the admission webhooks of kubetest's
// Validating- and MutatingWebhookConfigurations as kube-apiserver 1.36
// calls them: which webhooks a request goes to, the AdmissionReview they
// are sent, and what their answers do to the request. [Admit] (and
// [Attempt]) put them around a client's write of one object, [AdmitDelete]
// around its DELETE, [Caller.Review] around any other request; the
// server gives the write as a [Write] or a [Deletion], small interfaces
// over its storage, and says how to call with a [Caller].
//
// Guarantees:
//   - Selection as the real server's: rules (operations, apiGroups,
//     apiVersions, resources with subresources and "*", scope),
//     namespaceSelector (on the namespace's labels, or a Namespace's own)
//     and objectSelector (on the new or the old object); matchPolicy
//     Equivalent matches every version of a named resource.
//   - Order: mutating webhooks one after another, by the name of their
//     configuration then their place in it; those with reinvocationPolicy
//     IfNeeded once more when a later one changed the object. Validating
//     webhooks all at once, after them.
//   - The review is admission.k8s.io/v1 or v1beta1, the first of the
//     webhook's admissionReviewVersions; POSTed to its url, or to its
//     service at the address a [Resolver] gives with the certificate checked
//     for name.namespace.svc, trusting its caBundle, with ?timeout= and a
//     deadline of timeoutSeconds (10 s by default).
//   - Answers as the real server's: a denial is `admission webhook "NAME"
//     denied the request: MESSAGE` with the webhook's code (400 at least);
//     a failed call (refused, timed out, a non-2xx answer, an invalid
//     response) is a 500 InternalError `failed calling webhook "NAME": ...`
//     unless failurePolicy is Ignore; a JSON patch is applied to the object
//     (a patch that does not apply is a 500); warnings are returned in the
//     order the webhooks gave them; a dry run to a webhook whose
//     sideEffects are not None or NoneOnDryRun is refused (400).
//   - Nothing is called with the caller's lock held: the package takes
//     the server's lock only through [Write.Lock] and [Deletion.Lock],
//     never across a call, and holds no state between calls.
//   - A write with webhooks is made only if the stored object is still
//     the one the webhooks were sent; otherwise it starts over, as the
//     real server's update retries on a conflict. Every step of a write
//     that creates gives the object the same uid.
//   - [Check] refuses, at the write of a configuration, what kubetest would
//     otherwise call wrongly: matchConditions (CEL).
//
// Where it departs from the real server, see kube/kubetest/DIFFERENCES.md
// ("Admission webhooks").
package admission
