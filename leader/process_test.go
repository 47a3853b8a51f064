// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestProcessFailover runs two candidates as separate OS processes (this
// test binary, re-executed), kills the leader with SIGKILL, and measures in
// real time how long the other takes to lead. It is opt-in, since it takes
// real seconds:
//
//	KUBELOOP_PROCESS_TESTS=1 go test -run TestProcessFailover -v ./leader/
//
// It runs against kube/kubetest on a loopback socket, or against the real
// kube-apiserver when the integration harness's KUBELOOP_SERVER,
// KUBELOOP_TOKEN and KUBELOOP_CA_FILE are set.
func TestProcessFailover(t *testing.T) {
	if id := os.Getenv("KUBELOOP_LEADER_CHILD"); id != "" {
		runChild(t, id)
		return
	}
	if os.Getenv("KUBELOOP_PROCESS_TESTS") == "" && os.Getenv("KUBELOOP_SERVER") == "" {
		t.Skip("set KUBELOOP_PROCESS_TESTS=1 to run the two-process failover test")
	}
	env := []string{"KUBELOOP_LEASE=process-failover-" + strings.ToLower(rand.Text()[:8])}
	if os.Getenv("KUBELOOP_SERVER") == "" {
		srv := kubetest.New(kubetest.Options{})
		defer srv.Close()
		l, err := srv.Listen(false)
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, "KUBELOOP_SERVER="+l.URL)
	}

	a := startChild(t, "proc-a", env)
	a.wait(t, "LEADING", 10*time.Second)
	b := startChild(t, "proc-b", env)
	b.wait(t, "FOLLOWING proc-a", 10*time.Second)
	time.Sleep(procRP * 7 / 3) // kill between renewals
	killed := time.Now()
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	b.wait(t, "LEADING", procLD+3*time.Second)
	failover := time.Since(killed)
	t.Logf("failover after SIGKILL of the leader: %v (LeaseDuration %v, RetryPeriod %v)", failover, procLD, procRP)
	if lo, hi := procLD-procRP, procLD+procRP+time.Second; failover < lo || failover > hi {
		t.Errorf("failover = %v, want between L - P = %v and L + P + 1s = %v", failover, lo, hi)
	}
}

// Durations of the process test: short, to take little real time.
const (
	procLD = 4 * time.Second
	procRD = 3 * time.Second
	procRP = 500 * time.Millisecond
)

// child is a candidate process and the lines it prints.
type child struct {
	cmd   *exec.Cmd
	lines chan string
	seen  []string // lines read so far
}

func startChild(t *testing.T, id string, env []string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestProcessFailover$", "-test.v")
	cmd.Env = append(append(os.Environ(), env...), "KUBELOOP_LEADER_CHILD="+id)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, lines: make(chan string, 100)}
	go func() {
		defer close(c.lines)
		for s := bufio.NewScanner(out); s.Scan(); {
			c.lines <- s.Text()
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return c
}

// wait reads the child's output until a line starts with prefix.
func (c *child) wait(t *testing.T, prefix string, limit time.Duration) {
	t.Helper()
	timeout := time.After(limit)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				t.Fatalf("child exited before printing %q:\n%s", prefix, strings.Join(c.seen, "\n"))
			}
			c.seen = append(c.seen, line)
			if strings.HasPrefix(line, prefix) {
				return
			}
		case <-timeout:
			t.Fatalf("child did not print %q within %v", prefix, limit)
		}
	}
}

// runChild is the candidate process: it campaigns and prints FOLLOWING and
// LEADING lines until it is killed.
func runChild(t *testing.T, id string) {
	cfg := &kube.Config{Host: os.Getenv("KUBELOOP_SERVER"), BearerToken: os.Getenv("KUBELOOP_TOKEN")}
	cfg.TLS.CAFile = os.Getenv("KUBELOOP_CA_FILE")
	client, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Options{
		Client: client, Namespace: "default", LeaseName: os.Getenv("KUBELOOP_LEASE"), Identity: id,
		LeaseDuration: procLD, RenewDeadline: procRD, RetryPeriod: procRP,
		OnStartedLeading: func(ctx context.Context) { fmt.Println("LEADING") },
		OnNewLeader: func(holder string) {
			if holder != id {
				fmt.Println("FOLLOWING", holder)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Fatal(e.Run(context.Background())) // runs until killed
}
