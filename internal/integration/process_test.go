// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// buildProgram builds cmd/name into the test's temporary directory and
// returns the binary's path.
func buildProgram(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/kubeloop/kubeloop/cmd/"+name).CombinedOutput(); err != nil {
		t.Fatalf("build cmd/%s: %v\n%s", name, err, out)
	}
	return bin
}

// process is a program of cmd/ run as an operator runs it.
type process struct {
	name, metricsAddr string
	cmd               *exec.Cmd
	logs              bytes.Buffer
	// exited receives what Wait returned, once; waited is closed after
	// Wait has returned (the output written, ProcessState set).
	exited chan error
	waited chan struct{}
}

// startProgram runs bin with args and --metrics-bind-address on a free
// loopback port until the test ends; its output is logged if the test
// fails.
func startProgram(t *testing.T, ctx context.Context, name, bin string, args ...string) *process {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &process{name: name, metricsAddr: ln.Addr().String(), exited: make(chan error, 1), waited: make(chan struct{})}
	ln.Close()
	p.cmd = exec.CommandContext(ctx, bin, append(args, "--metrics-bind-address", p.metricsAddr)...)
	p.cmd.Stdout, p.cmd.Stderr = &p.logs, &p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		close(p.waited)
		p.exited <- err
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill() // an error if it has exited: nothing to do then
		<-p.waited
		if t.Failed() {
			t.Logf("%s's output:\n%s", p.name, p.logs.String())
		}
	})
	return p
}

// stop sends SIGTERM and checks that the replica exits 0.
func (p *process) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("%s exited with %v after SIGTERM, want 0", p.name, err)
		} else if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not stop within 30s of SIGTERM", p.name)
	}
}

// metrics returns what the program serves at /metrics.
func (p *process) metrics() (string, error) {
	resp, err := http.Get("http://" + p.metricsAddr + "/metrics")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}
