// SPDX-License-Identifier: Apache-2.0

// Command kube-apiserver runs a real kube-apiserver, backed by an embedded
// etcd, on loopback for kubeloop's integration tests. harness.sh builds it,
// picks its ports and tokens, starts and stops it; see README.md.
//
// Everything it writes goes under -dir:
//
//	etcd/        etcd data
//	certs/       self-signed serving certificate (apiserver.crt, apiserver.key)
//	sa.key       RSA key that signs and verifies service account tokens
//	tokens.csv   static bearer tokens: admin (system:masters) and denied (no groups)
//
// Arguments after the flags and "--" are passed to kube-apiserver after its
// defaults, so a later flag overrides an earlier one.
package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	fs := flag.NewFlagSet("kube-apiserver", flag.ExitOnError)
	var (
		dir          = fs.String("dir", "", "state directory for etcd data, certificates, keys and tokens (required)")
		securePort   = fs.Int("secure-port", 0, "HTTPS port of kube-apiserver on 127.0.0.1 (required)")
		etcdPort     = fs.Int("etcd-port", 0, "client port of the embedded etcd on 127.0.0.1 (required)")
		etcdPeerPort = fs.Int("etcd-peer-port", 0, "peer port of the embedded etcd on 127.0.0.1 (required)")
		adminToken   = fs.String("admin-token", "", "bearer token of user admin, in group system:masters (required)")
		deniedToken  = fs.String("denied-token", "", "bearer token of user denied, in no group, so RBAC denies it (required)")
		compaction   = fs.Duration("etcd-compaction-interval", 20*time.Second, "how often kube-apiserver compacts etcd; short so tests see 410 Gone")
		pickPorts    = fs.Int("pick-ports", 0, "print this many free loopback TCP ports, one a line, and exit")
	)
	fs.Parse(os.Args[1:])

	if *pickPorts > 0 {
		if err := printFreePorts(*pickPorts); err != nil {
			fatal(err)
		}
		return
	}
	switch {
	case *dir == "":
		fatal(errors.New("-dir is required"))
	case *securePort == 0 || *etcdPort == 0 || *etcdPeerPort == 0:
		fatal(errors.New("-secure-port, -etcd-port and -etcd-peer-port are required"))
	case *adminToken == "" || *deniedToken == "":
		fatal(errors.New("-admin-token and -denied-token are required"))
	}

	saKey := filepath.Join(*dir, "sa.key")
	if err := writeRSAKey(saKey); err != nil {
		fatal(err)
	}
	tokens := filepath.Join(*dir, "tokens.csv")
	tokenLines := *adminToken + ",admin,1,system:masters\n" + *deniedToken + ",denied,2\n"
	if err := os.WriteFile(tokens, []byte(tokenLines), 0o600); err != nil {
		fatal(err)
	}

	etcd, err := startEtcd(filepath.Join(*dir, "etcd"), *etcdPort, *etcdPeerPort)
	if err != nil {
		fatal(err)
	}

	cmd := app.NewAPIServerCommand()
	cmd.SetArgs(append([]string{
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", *etcdPort),
		"--etcd-compaction-interval=" + compaction.String(),
		"--secure-port=" + strconv.Itoa(*securePort),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--cert-dir=" + filepath.Join(*dir, "certs"),
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + saKey,
		"--service-account-signing-key-file=" + saKey,
		"--token-auth-file=" + tokens,
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--disable-admission-plugins=ServiceAccount",
		"--endpoint-reconciler-type=none",
		// harness.sh passes --feature-gates first among the arguments
		// after "--": which gates exist depends on the version built.
	}, fs.Args()...))

	// cli.Run returns when kube-apiserver has shut down (on SIGTERM or
	// SIGINT) or failed to start. etcd lives in this process and its data is
	// throwaway: stop it cleanly after a clean shutdown, and after a failure
	// exit at once, so that kube-apiserver's error ends the log rather than
	// etcd's complaints about closed listeners.
	code := cli.Run(cmd)
	if code == 0 {
		etcd.Close()
	}
	os.Exit(code)
}

// startEtcd starts a single-member etcd that listens on loopback only and
// waits until it serves.
func startEtcd(dataDir string, clientPort, peerPort int) (*embed.Etcd, error) {
	cfg := embed.NewConfig()
	cfg.Name = "harness"
	cfg.Dir = dataDir
	client, peer := loopbackURL(clientPort), loopbackURL(peerPort)
	cfg.ListenClientUrls = []url.URL{client}
	cfg.AdvertiseClientUrls = []url.URL{client}
	cfg.ListenPeerUrls = []url.URL{peer}
	cfg.AdvertisePeerUrls = []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = true // throwaway data: durability buys nothing here

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("start etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("start etcd: %w", err)
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, errors.New("start etcd: not ready after 60s")
	}
}

// writeRSAKey writes a new 2048-bit RSA private key as PEM. kube-apiserver
// signs service account tokens with it and derives the verifying public key
// from it.
func writeRSAKey(path string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generate service account key: %w", err)
	}
	block := &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}
	return os.WriteFile(path, pem.EncodeToMemory(block), 0o600)
}

// printFreePorts holds n loopback listeners open at once, so the ports are
// distinct, prints their ports and closes them. Another process may take a
// port before the caller binds it; harness.sh retries when that happens.
func printFreePorts(n int) error {
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("pick port: %w", err)
		}
		defer l.Close()
		fmt.Println(l.Addr().(*net.TCPAddr).Port)
	}
	return nil
}

func loopbackURL(port int) url.URL {
	return url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "kube-apiserver harness:", err)
	os.Exit(1)
}
