// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"os"
	"time"

	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// execCredentialJSON is the ExecCredential object of the
// client.authentication.k8s.io API, both what the plugin is given in
// KUBERNETES_EXEC_INFO (spec) and what it prints (status).
type execCredentialJSON struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Spec       execSpec    `json:"spec"`
	Status     *execStatus `json:"status,omitempty"`
}

type execSpec struct {
	Cluster     *execCluster `json:"cluster,omitempty"`
	Interactive bool         `json:"interactive"`
}

// execCluster tells the plugin which server the credential is for.
type execCluster struct {
	Server                   string `json:"server"`
	TLSServerName            string `json:"tls-server-name,omitempty"`
	InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify,omitempty"`
	CertificateAuthorityData []byte `json:"certificate-authority-data,omitempty"`
	ProxyURL                 string `json:"proxy-url,omitempty"`
}

type execStatus struct {
	ExpirationTimestamp   string `json:"expirationTimestamp,omitempty"`
	Token                 string `json:"token,omitempty"`
	ClientCertificateData string `json:"clientCertificateData,omitempty"`
	ClientKeyData         string `json:"clientKeyData,omitempty"`
}

// execInfo returns the KUBERNETES_EXEC_INFO value: an ExecCredential with
// spec.interactive false and, with ProvideClusterInfo, spec.cluster (the CA
// file read now, so that a rotated CA is passed on).
func (a *execAuth) execInfo() ([]byte, error) {
	ec := execCredentialJSON{APIVersion: a.cfg.APIVersion, Kind: "ExecCredential"}
	if a.cluster != nil {
		cl := *a.cluster
		if a.caFile != "" {
			ca, err := os.ReadFile(a.caFile)
			if err != nil {
				return nil, errs.Errorf("read CA file for the cluster info: %w", err)
			}
			cl.CertificateAuthorityData = ca
		}
		ec.Spec.Cluster = &cl
	}
	return json.Marshal(ec)
}

// parseExecCredential decodes a plugin's output. Its errors never quote the
// output: it holds the credential.
func parseExecCredential(out []byte, apiVersion string) (*execCredential, error) {
	var ec execCredentialJSON
	if err := jsondec.New(jsondec.Options{}).Unmarshal(out, &ec); err != nil {
		if je, ok := err.(*jsondec.Error); ok && je.Type == nil {
			return nil, errs.Errorf("decode its output: not JSON (offset %d)", je.Offset)
		}
		return nil, errors.New("decode its output: not an ExecCredential")
	}
	if ec.Kind != "ExecCredential" {
		return nil, errs.Errorf("decode its output: kind %q, want ExecCredential", ec.Kind)
	}
	if ec.APIVersion != apiVersion {
		return nil, errs.Errorf("decode its output: apiVersion %q, want %q", ec.APIVersion, apiVersion)
	}
	st := ec.Status
	if st == nil {
		return nil, errors.New("decode its output: no status")
	}
	c := &execCredential{token: st.Token}
	if st.ExpirationTimestamp != "" {
		t, err := time.Parse(time.RFC3339, st.ExpirationTimestamp)
		if err != nil {
			return nil, errs.Errorf("decode its output: status.expirationTimestamp %q is not RFC 3339", st.ExpirationTimestamp)
		}
		c.expiry = t
	}
	switch hasCert, hasKey := st.ClientCertificateData != "", st.ClientKeyData != ""; {
	case hasCert && hasKey:
		pair, err := tls.X509KeyPair([]byte(st.ClientCertificateData), []byte(st.ClientKeyData))
		if err != nil {
			return nil, errs.Errorf("decode its output: client certificate: %w", err)
		}
		c.cert = &pair
	case hasCert || hasKey:
		return nil, errors.New("decode its output: status has only one of clientCertificateData and clientKeyData")
	case c.token == "":
		return nil, errors.New("decode its output: status has neither a token nor a client certificate")
	}
	return c, nil
}
