// SPDX-License-Identifier: Apache-2.0

// Package satoken is the TokenRequest of kube-apiserver 1.36.3 (POST
// serviceaccounts/NAME/token, kubectl create token) and the service
// account tokens it issues: [Request] reads and checks a TokenRequest
// and builds its answer, [Sign] makes the token of [Claims], [Verify]
// reads one back, and [User] and [Groups] are the identity a token
// authenticates. [Issue] answers a TokenRequest, [UserOf] reads a token
// back to its user and [UID] gives a user's uid, finding service
// accounts through [Accounts], which the server implements over its
// store. Nothing is stored, and this package keeps no state: a token
// holds its claims, signed with the server's key, so that no list of
// issued tokens grows.
//
// Guarantees:
//   - A token verifies only with the key that signed it, before its
//     expiry and not before its issue; anything else is refused, never
//     read as another identity.
//   - The answer has the real server's shape: the service account's name,
//     namespace and uid, the spec defaulted (expirationSeconds 3600, the
//     API server's audience), the token and its expirationTimestamp,
//     and a managedFields entry of subresource "token".
//   - A request the real server refuses (an expiration under 10 minutes
//     or over 2^32 seconds, a name that is not the service account's) is
//     refused with its messages.
package satoken
