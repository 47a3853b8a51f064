// SPDX-License-Identifier: Apache-2.0

package kubetest

// CertificateSigningRequests' approval subresource (kubectl certificate
// approve|deny) is served as an update of subresource "approval"
// (update.go's prepareUpdate: its conditions only, package csr); every
// write of a CSR has its conditions validated as the real server
// validates them (namespace.go).

// isCSRs reports whether res is certificates.k8s.io's
// CertificateSigningRequests.
func isCSRs(res *resource) bool {
	return res.Group == "certificates.k8s.io" && res.Plural == "certificatesigningrequests"
}
