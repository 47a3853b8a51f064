// SPDX-License-Identifier: Apache-2.0

package kubetest

// This file routes the approval subresource of CertificateSigningRequests
// (kubectl certificate approve|deny): GET answers the CSR, PUT and
// patches write its conditions only (package csr), recorded as a write of
// subresource "approval". Every write of a CSR has its conditions
// validated as the real server validates them (namespace.go).

// isCSRs reports whether res is certificates.k8s.io's
// CertificateSigningRequests.
func isCSRs(res *resource) bool {
	return res.Group == "certificates.k8s.io" && res.Plural == "certificatesigningrequests"
}

// isCSRApproval reports whether the call is to a CSR's approval.
func isCSRApproval(res *resource, info RequestInfo) bool {
	return isCSRs(res) && info.Subresource == "approval"
}
