// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"testing"
)

// testCSRApproval approves a CertificateSigningRequest through its
// approval subresource (kubectl certificate approve): the write changes
// the conditions only (spec and certificate stay), stamps their times,
// and is refused with the real messages when it holds Approved and
// Denied, removes Approved, or makes Approved other than True.
func testCSRApproval(t *testing.T, f *fixture) {
	name := "kubeloop-" + f.ns
	path := "/apis/certificates.k8s.io/v1/certificatesigningrequests"
	csr := map[string]any{"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"request": certificateRequest(t), "signerName": "example.com/signer", "usages": []any{"client auth"}}}
	body, _ := json.Marshal(csr)
	f.post(t, path, string(body))
	t.Cleanup(func() { f.send(t, "DELETE", path+"/"+name, "", "") })
	approval := path + "/" + name + "/approval"
	if r := f.send(t, "GET", approval, "", ""); r.code != 200 || r.object(t)["kind"] != "CertificateSigningRequest" {
		t.Errorf("GET approval = %d %s, want the CSR", r.code, r.body)
	}

	put := func(status map[string]any, signer string) rawResponse {
		c := map[string]any{"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
			"metadata": map[string]any{"name": name},
			"spec":     map[string]any{"request": csr["spec"].(map[string]any)["request"], "signerName": signer, "usages": []any{"client auth"}},
			"status":   status}
		b, _ := json.Marshal(c)
		return f.send(t, "PUT", approval, "application/json", string(b))
	}
	cond := func(typ, status string) map[string]any {
		return map[string]any{"type": typ, "status": status, "reason": "KubeloopScenario", "message": "by the scenario"}
	}
	r := put(map[string]any{"conditions": []any{cond("Approved", "True")}, "certificate": "YWJj"}, "example.com/other")
	if r.code != 200 {
		t.Fatalf("approve = %d %s", r.code, r.body)
	}
	var got struct {
		Spec   struct{ SignerName string }
		Status struct {
			Certificate string
			Conditions  []map[string]any
		}
	}
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	if c := got.Status.Conditions; len(c) != 1 || c[0]["type"] != "Approved" || c[0]["lastUpdateTime"] == nil || c[0]["lastTransitionTime"] == nil {
		t.Errorf("conditions after approval = %v, want Approved with its times", c)
	}
	if got.Spec.SignerName != "example.com/signer" || got.Status.Certificate != "" {
		t.Errorf("approval changed signerName to %q, certificate to %q; want neither changed", got.Spec.SignerName, got.Status.Certificate)
	}

	prefix := `CertificateSigningRequest.certificates.k8s.io "` + name + `" is invalid: `
	// 1.33 names the second condition's type, 1.37 (declarative
	// validation) the union of the two.
	exclusive, exclusiveAt := `Invalid value: "Denied": Approved and Denied conditions are mutually exclusive`, "status.conditions"
	switch m := f.minor(t); {
	case m <= minorOldest:
		exclusiveAt = "status.conditions[1].type"
	case m >= minorNewest:
		exclusive = `Invalid value: "{conditions[{\"type\": \"Approved\"}], conditions[{\"type\": \"Denied\"}]}": ` +
			"must specify at most one of: `conditions[{\"type\": \"Approved\"}]`, `conditions[{\"type\": \"Denied\"}]`"
	}
	expectInvalid(t, "approve and deny", put(map[string]any{"conditions": []any{cond("Approved", "True"), cond("Denied", "True")}}, "example.com/signer"),
		prefix+exclusiveAt+": "+exclusive, statusCause{Reason: "FieldValueInvalid", Message: exclusive, Field: exclusiveAt})
	const removed = `Forbidden: updates may not remove a condition of type "Approved"`
	expectInvalid(t, "deny an approved CSR", put(map[string]any{"conditions": []any{cond("Denied", "True")}}, "example.com/signer"),
		prefix+"status.conditions: "+removed, statusCause{Reason: "FieldValueForbidden", Message: removed, Field: "status.conditions"})
	const unsupported = `Unsupported value: "False": supported values: "True"`
	expectInvalid(t, "an Approved condition that is False", put(map[string]any{"conditions": []any{cond("Approved", "False")}}, "example.com/signer"),
		prefix+"status.conditions[0].status: "+unsupported,
		statusCause{Reason: "FieldValueNotSupported", Message: unsupported, Field: "status.conditions[0].status"})
}

// certificateRequest is a PEM certificate request for a new key, in
// base64 as a CSR's spec.request holds it.
func certificateRequest(t *testing.T) string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "kubeloop-scenario"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
}
