// SPDX-License-Identifier: Apache-2.0

package operatortest

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cmd/internal/operator"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// Main is a program from its arguments to its exit code, as
// [operator.Main] runs it.
type Main func(ctx context.Context, args []string, stderr io.Writer) int

// ExitCase is a command line and what the program must answer it with.
type ExitCase struct {
	Name   string
	Args   []string
	Code   int    // the exit code
	Stderr string // a part of what it writes to stderr
}

// NoCluster clears, for the rest of the test, what a program finds a
// cluster through ($KUBECONFIG, ~/.kube/config, the in-cluster service
// variables), so that it finds none unless given --kubeconfig.
func NoCluster(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
}

// Cluster starts a kubetest server on a loopback TLS listener until the
// test ends, as a program's main reaches a cluster: through a kubeconfig
// file, whose path it returns, with a client of the same server (no
// client-side rate limit) for the test's own reads and writes.
func Cluster(t *testing.T) (client *kube.Client, kubeconfig string) {
	t.Helper()
	client, kubeconfig, _ = cluster(t, kubetest.Options{})
	return client, kubeconfig
}

// ProgramUser is the user a kubeconfig of RecordedCluster authenticates
// the program as.
const ProgramUser = "program"

// RecordedCluster is Cluster with the program's requests told apart from
// the test's: the kubeconfig authenticates the program as ProgramUser,
// the client as admin, and the server records what each asked (see
// CheckRBAC).
func RecordedCluster(t *testing.T) (client *kube.Client, kubeconfig string, srv *kubetest.Server) {
	t.Helper()
	return cluster(t, kubetest.Options{Tokens: map[string]string{"admin-token": "admin", "test": ProgramUser}})
}

// cluster starts a server made with opts on a loopback TLS listener
// until the test ends, and returns a client of it (its default user's),
// a kubeconfig with token "test", and the server.
func cluster(t *testing.T, opts kubetest.Options) (*kube.Client, string, *kubetest.Server) {
	t.Helper()
	srv := kubetest.New(opts)
	t.Cleanup(srv.Close)
	ln, err := srv.Listen(true)
	if err != nil {
		t.Fatal(err)
	}
	cfg := ln.Config()
	cfg.QPS = -1
	client, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return client, WriteKubeconfig(t, ln.URL, ln.CAData), srv
}

// CheckRBAC compares the ClusterRole named name that allows what the
// program asked of srv (kubetest.Server.ClusterRole) with the file at
// path, the RBAC the program ships; KUBELOOP_WRITE_RBAC=1 in the
// environment writes the file instead.
func CheckRBAC(t *testing.T, srv *kubetest.Server, name, path string) {
	t.Helper()
	got := "# The permissions of the program, as its tests on kube/kubetest recorded them\n" +
		"# (KUBELOOP_WRITE_RBAC=1 go test -run TestRunWithKubeconfig writes this file).\n" +
		srv.ClusterRole(ProgramUser, name)
	if os.Getenv("KUBELOOP_WRITE_RBAC") != "" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the program asked for other permissions than %s gives; if that is meant, write it again with KUBELOOP_WRITE_RBAC=1. Asked:\n%s", path, got)
	}
}

// CheckExitCodes runs main once for each case, as a subtest, and checks
// its exit code and stderr.
func CheckExitCodes(t *testing.T, main Main, cases []ExitCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			var errOut bytes.Buffer
			code := main(t.Context(), tc.Args, &errOut)
			if code != tc.Code || !strings.Contains(errOut.String(), tc.Stderr) {
				t.Errorf("run(%q) = %d, stderr:\n%s\nwant %d and %q", tc.Args, code, &errOut, tc.Code, tc.Stderr)
			}
		})
	}
}

// Process is a program run by [Start], as a process of its own would be.
type Process struct {
	t      *testing.T
	Logs   *SyncBuffer // what it writes to stderr
	cancel context.CancelFunc
	code   chan int
}

// Start runs main with args in a goroutine until [Process.Stop] or the
// end of the test.
func Start(t *testing.T, main Main, args ...string) *Process {
	ctx, cancel := context.WithCancel(t.Context())
	p := &Process{t: t, Logs: &SyncBuffer{}, cancel: cancel, code: make(chan int, 1)}
	go func() { p.code <- main(ctx, args, p.Logs) }()
	t.Cleanup(cancel)
	return p
}

// Until checks cond every 20ms for up to 20s, and fails the test with
// cond's last error and the program's logs if it never holds.
func (p *Process) Until(what string, cond func() error) {
	p.t.Helper()
	var err error
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err = cond(); err == nil {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: not after 20s: %v\nlogs:\n%s", what, err, p.Logs.String())
		}
	}
}

// Stop cancels the program's context, as SIGTERM does, and checks that it
// exits with [operator.ExitOK] within 30s.
func (p *Process) Stop() {
	p.t.Helper()
	p.cancel()
	select {
	case c := <-p.code:
		if c != operator.ExitOK {
			p.t.Errorf("run = %d after cancel, want %d\nlogs:\n%s", c, operator.ExitOK, p.Logs.String())
		}
	case <-time.After(30 * time.Second):
		p.t.Fatalf("run did not return 30s after cancel\nlogs:\n%s", p.Logs.String())
	}
}
