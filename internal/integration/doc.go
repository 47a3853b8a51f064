// SPDX-License-Identifier: Apache-2.0

// Package integration runs kubeloop's scenarios against a real kube-apiserver
// backed by etcd, started on loopback by testdata/kube-apiserver/harness.sh.
//
// The tests carry the build tag "integration", so `go test ./...` needs no
// server and compiles only this file. With the tag they read the server from
// the environment the harness writes, and fail (never skip) when it is
// missing:
//
//   - KUBELOOP_KUBECONFIG: kubeconfig of user admin, in group system:masters
//   - KUBELOOP_DENIED_KUBECONFIG: kubeconfig of user denied, whom RBAC denies everything
//   - KUBELOOP_SERVER: the server URL, https://127.0.0.1:PORT
//   - KUBELOOP_TOKEN, KUBELOOP_DENIED_TOKEN: the two users' bearer tokens
//   - KUBELOOP_CA_FILE: PEM bundle that verifies the server's certificate
//   - KUBELOOP_KUBECTL: the kubectl the harness built, which TestKubectl
//     runs against kube/kubetest and the real server
//   - KUBELOOP_KUBE_VERSION (optional): the Kubernetes version the harness
//     built, 1.MINOR.PATCH; without it the tests read the server's /version
//
// The suite runs on every version the harness builds (1.33.13, 1.36.3,
// 1.37.2: KUBE_VERSION chooses). Where the minors answer differently (the
// APIs served, Tables, validation messages, shardSelector, which 1.33
// ignores) the tests choose what to expect by the server's minor; a test
// that cannot apply to a minor skips, saying why. TestKubectl makes
// kube/kubetest act as the server's minor (Options.Minor) and compares
// kubectl's outputs on both. CI (.ci/run) runs the suite on the default,
// the newest (1.37.2).
//
// Usage, from the repository root:
//
//  1. testdata/kube-apiserver/harness.sh run -- go test -tags integration ./internal/integration/
//  2. KUBE_VERSION=1.33.13 testdata/kube-apiserver/harness.sh run -- go test -tags integration ./internal/integration/
//  3. testdata/kube-apiserver/harness.sh matrix -- go test -tags integration ./internal/integration/ (every version)
//
// The first run builds kube-apiserver (minutes); later runs reuse the Go
// build cache and start a fresh server with an empty etcd in a few seconds.
//
// TestScenarios runs internal/scenario's wire scenarios. FreshReads and
// FreshFinalizer, which need watch events delivered late, reach the
// server through lagProxy (lagproxy_test.go), a reverse proxy on loopback
// that holds back the lines of JSON watches; the other scenarios reach it
// directly. FreshReads alone takes about 25 s, FreshFinalizer about 7 s:
//
//	testdata/kube-apiserver/harness.sh run -- go test -tags integration -count=1 -v -run TestScenarios/FreshReads ./internal/integration/
//
// TestWebhookCertificatesRotate (webhook_certs_test.go) has the server
// call webhooks whose certificates and caBundles package
// manager/webhook/certs keeps, across rotations of the CA and of the
// serving certificate in 50 s, every call a new TLS handshake, none
// refused:
//
//	testdata/kube-apiserver/harness.sh run -- go test -tags integration -count=1 -v -run TestWebhookCertificatesRotate ./internal/integration/
//
// TestShardProcesses (shardprocs_test.go) runs a sharded controller as
// three OS processes (cmd/internal/shardmember) on 3,000 ConfigMaps, on the
// harness's server and on a second one it starts with the
// ShardedListAndWatch gate off (on 1.33, which has no such gate, the
// harness's server alone, as the gate off), in about 45 s; it logs a table of objects
// cached, bytes read and requests per member. KUBELOOP_MEASURE=1 adds rings
// of one and two members to the table (about 65 s in all):
//
//	KUBELOOP_MEASURE=1 testdata/kube-apiserver/harness.sh run -- go test -tags integration -count=1 -v -run TestShardProcesses ./internal/integration/
//
// TestShardMeasure (shardmeasure_test.go) runs only with KUBELOOP_MEASURE=1:
// the same members on 2,000 ConfigMaps, 64 ranges, through a join, a
// graceful stop, a join and a SIGKILL, gate on and off; it logs the
// reconciles of each moved object, the handover times and the objects
// each member received (about 50 s a run of both gates;
// KUBELOOP_MEASURE_RUNS=N repeats them):
//
//	KUBELOOP_MEASURE=1 KUBELOOP_MEASURE_RUNS=3 testdata/kube-apiserver/harness.sh run -- go test -tags integration -count=1 -v -run TestShardMeasure ./internal/integration/
package integration
