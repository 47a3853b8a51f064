// SPDX-License-Identifier: Apache-2.0

// Package review answers the reviews a kubetest server is asked and never
// stores: access reviews (SelfSubjectAccessReview, `kubectl auth can-i`;
// SubjectAccessReview; LocalSubjectAccessReview), the reviews a user makes
// of itself (SelfSubjectReview, `kubectl auth whoami`;
// SelfSubjectRulesReview, `kubectl auth can-i --list`) and TokenReviews.
// [Serve] reads the request (its verb, its body) and writes the answer
// or the refusal; [Answer] decides what both hold, asking the server
// through the small [Server] interface.
//
// kubetest's users are names; user "admin" is reported in group
// system:masters, as the harness's admin is, and every user is in
// system:authenticated. Rules are what the denials leave
// ([authz.Denials.Rules]).
//
// Guarantees:
//   - Answer keeps no state and never modifies the request's body but for
//     the spec it returns in the answer.
//   - Every user may ask, whatever the denials say; a subject that holds
//     system:masters is allowed everything.
//   - A review that fails validation is refused with every failure found,
//     never answered.
package review
