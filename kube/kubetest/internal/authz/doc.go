// SPDX-License-Identifier: Apache-2.0

// Package authz decides what kubetest's server refuses to whom: a set of
// [Denials] of (user, verb, resource) that tests add and remove, in place
// of RBAC, and the answers a SelfSubjectRulesReview gives from it
// ([Denials.Rules]). Everything not denied is allowed.
//
// Guarantees:
//   - The zero Denials denies nothing, and is safe for concurrent use.
//   - "*" in a denial matches any user, verb or resource; nothing else is
//     a pattern.
//   - The paths RBAC's default roles let every authenticated user get
//     ([PublicPath], [DiscoveryPath]) are never denied to a member of
//     system:authenticated ([Denials.DeniesPath]).
//
// It also authenticates bearer tokens ([Authenticate], [TokenFor],
// [DefaultToken]) and words the real server's 403 ([ForbiddenMessage]);
// the server answers the requests.
package authz
