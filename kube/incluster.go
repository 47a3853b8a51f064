// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// ErrNotInCluster is returned (wrapped) by [InClusterConfig] when the
// process does not run in a pod: KUBERNETES_SERVICE_HOST or
// KUBERNETES_SERVICE_PORT is not set.
var ErrNotInCluster = errors.New("not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set")

// serviceAccountDir is where the kubelet mounts a pod's service account.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// InClusterConfig returns the configuration of a process that runs in a
// pod: the API server from KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT, and from the service account directory
// (/var/run/secrets/kubernetes.io/serviceaccount) the token file (re-read
// as it rotates, see [Config.BearerTokenFile]), the CA file ca.crt when it
// exists (else the system roots) and the namespace.
//
// It reads the token once to check it is there; an error wraps
// [ErrNotInCluster] when the environment variables are missing.
func InClusterConfig() (*Config, error) {
	return inClusterConfig("/", os.Getenv)
}

// inClusterConfig is InClusterConfig with the file system root and the
// environment passed in, for tests.
func inClusterConfig(root string, getenv func(string) string) (*Config, error) {
	host, port := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, errs.Errorf("load in-cluster config: %w", ErrNotInCluster)
	}
	dir := filepath.Join(root, serviceAccountDir)
	cfg := &Config{
		// JoinHostPort brackets an IPv6 address.
		Host:            "https://" + net.JoinHostPort(strings.Trim(host, "[]"), port),
		BearerTokenFile: filepath.Join(dir, "token"),
	}
	token, err := os.ReadFile(cfg.BearerTokenFile)
	if err != nil {
		return nil, errs.Errorf("load in-cluster config: read service account token: %w", err)
	}
	if len(strings.TrimSpace(string(token))) == 0 {
		return nil, errs.Errorf("load in-cluster config: service account token %s is empty", cfg.BearerTokenFile)
	}
	ca := filepath.Join(dir, "ca.crt")
	switch _, err := os.Stat(ca); {
	case err == nil:
		cfg.TLS.CAFile = ca
	case !errors.Is(err, fs.ErrNotExist):
		return nil, errs.Errorf("load in-cluster config: %w", err)
	}
	ns, err := os.ReadFile(filepath.Join(dir, "namespace"))
	switch {
	case err == nil:
		cfg.Namespace = strings.TrimSpace(string(ns))
	case !errors.Is(err, fs.ErrNotExist):
		return nil, errs.Errorf("load in-cluster config: read namespace: %w", err)
	}
	return cfg, nil
}
