// SPDX-License-Identifier: Apache-2.0

// Package bootstrap holds what a fresh kube-apiserver 1.36.3 holds before
// anyone writes to it, as kubetest's server creates it.
//
// Guarantees:
//   - [Objects] returns fresh objects on each call, in the real server's
//     order; nothing is kept.
package bootstrap

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"strings"
	"time"
)

// This file lists what a fresh kube-apiserver holds before anyone writes
// to it (captured from kube-apiserver 1.36.3 run by
// testdata/kube-apiserver, which runs no controllers): the four system
// namespaces, service/kubernetes in default, and in kube-system the
// ConfigMap that tracks legacy service account tokens and the API server's
// identity Lease. All are written by manager "kube-apiserver", in the
// order the real server writes them.
//
// Differences: the real server renews its Lease every ten seconds (so its
// resourceVersion moves); the fake writes it once. The Service's
// targetPort is the default secure port 6443, not the port of a listener,
// and the Lease has no kubernetes.io/peer-advertise-address annotation.

type obj = map[string]any

// bootstrapHost is the host name the fake's identity Lease is named after.
const bootstrapHost = "kubetest"

// kubernetesClusterIP is the cluster IP of service/kubernetes: the first address of
// the real server's default service range, 10.0.0.0/24.
const kubernetesClusterIP = "10.0.0.1"

// Object is one object a fresh server holds, of the resource Plural of
// Group at v1.
type Object struct {
	Group, Plural string
	Object        map[string]any
}

// Objects returns what a fresh server holds, in the order the real server
// writes it; now is the time it starts, holderUID the uid in its Lease's
// holder identity.
func Objects(now time.Time, holderUID string) []Object {
	var out []Object
	seed := func(plural string, o obj) {
		group := ""
		if plural == "leases" {
			group = "coordination.k8s.io"
		}
		out = append(out, Object{Group: group, Plural: plural, Object: o})
	}
	ns := func(name string) {
		seed("namespaces", obj{"apiVersion": "v1", "kind": "Namespace", "metadata": obj{"name": name}})
	}
	ns("kube-system")
	seed("configmaps", obj{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": obj{"namespace": "kube-system", "name": "kube-apiserver-legacy-service-account-token-tracking"},
		"data":     obj{"since": now.UTC().Format(time.DateOnly)}})
	ns("kube-public")
	ns("default")
	ns("kube-node-lease")
	id := identityLeaseName(bootstrapHost)
	seed("leases", obj{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
		"metadata": obj{"namespace": "kube-system", "name": id, "labels": obj{
			"apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": bootstrapHost}},
		"spec": obj{"holderIdentity": id + "_" + holderUID, "leaseDurationSeconds": int64(3600),
			"renewTime": now.UTC().Format("2006-01-02T15:04:05.000000Z07:00")}})
	https := obj{"name": "https", "port": int64(443), "protocol": "TCP", "targetPort": int64(6443)}
	seed("services", obj{"apiVersion": "v1", "kind": "Service",
		"metadata": obj{"namespace": "default", "name": "kubernetes",
			"labels": obj{"component": "apiserver", "provider": "kubernetes"}},
		"spec": obj{"clusterIP": kubernetesClusterIP, "clusterIPs": []any{kubernetesClusterIP},
			"internalTrafficPolicy": "Cluster", "ipFamilies": []any{"IPv4"}, "ipFamilyPolicy": "SingleStack",
			"ports": []any{https}, "sessionAffinity": "None", "type": "ClusterIP"}})
	return out
}

// identityLeaseName is the name of the API server's identity Lease on a
// host: "apiserver-" and, in lower-case base32, the first 16 bytes of the
// SHA-256 of the host name and "kube-apiserver", each prefixed with its
// length in two bytes.
func identityLeaseName(host string) string {
	var b []byte
	for _, s := range []string{host, "kube-apiserver"} {
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	sum := sha256.Sum256(b)
	return "apiserver-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:16]))
}
