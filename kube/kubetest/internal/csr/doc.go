// SPDX-License-Identifier: Apache-2.0

// Package csr is what kube-apiserver 1.36.3 does to a
// CertificateSigningRequest's conditions: [PrepareApproval] builds the
// object a write to the approval subresource stores (its conditions
// only, on the stored spec and status), [StampConditions] fills the
// conditions' times as the strategies do, and [ValidateConditions]
// refuses what the real validation refuses, with its messages. The
// server routes the request and stores the object; this package keeps
// no state and reads no other object.
//
// Guarantees:
//   - An approval write changes status.conditions and metadata only:
//     the stored spec and the rest of the status (a certificate) stay.
//   - Approved and Denied never both hold, an Approved, Denied or Failed
//     condition is True, and once there it is never removed.
//   - A condition keeps its lastTransitionTime while its type and status
//     stay; lastUpdateTime is the write's time unless the write set it.
package csr
