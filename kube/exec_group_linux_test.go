// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// What becomes of a credential plugin's processes: the group of a run
// that ends is killed, and the plugin dies with the process that ran it.
// The test process becomes the subreaper of its descendants, so that it
// can wait for an orphaned plugin or child and see what signal ended it.

// becomeSubreaper makes the test process adopt its orphaned descendants
// until the test ends.
func becomeSubreaper(t *testing.T) {
	t.Helper()
	const prSetChildSubreaper = 36
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		t.Skipf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
	}
	t.Cleanup(func() { syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0) })
}

// waitKilled waits for pid, a process the test adopted, to end, and fails
// unless SIGKILL ended it. A process still running after a while (a safety
// net, not a timing) is killed and reported.
func waitKilled(t *testing.T, what string, pid int) {
	t.Helper()
	done := make(chan syscall.WaitStatus, 1)
	go func() {
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(pid, &ws, 0, nil)
			if err != syscall.EINTR {
				done <- ws
				return
			}
		}
	}()
	select {
	case ws := <-done:
		if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("%s %d ended with status %v, want killed by SIGKILL", what, pid, ws)
		}
	case <-time.After(20 * time.Second):
		syscall.Kill(pid, syscall.SIGKILL)
		<-done
		t.Errorf("%s %d still ran 20s after it should have been killed", what, pid)
	}
}

// lineWriter sends the first line written to it.
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	line chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for i, b := range w.buf {
		if b == '\n' {
			select {
			case w.line <- string(w.buf[:i]):
			default:
			}
			w.buf = w.buf[i+1:]
			break
		}
	}
	return len(p), nil
}

// TestExecRunEndKillsPluginGroup: a plugin that started a child and
// hangs, ignoring everything, is ended with its child when the run's
// context ends.
func TestExecRunEndKillsPluginGroup(t *testing.T) {
	becomeSubreaper(t)
	a, err := newExecAuth(&Config{Exec: testPlugin(t.TempDir(), "orphan")})
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lineWriter{line: make(chan string, 1)}
	a.stderr = stderr
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ran := make(chan error, 1)
	go func() {
		_, err := a.exec(ctx)
		ran <- err
	}()
	var plugin, child int
	select {
	case line := <-stderr.line:
		if _, err := fmt.Sscanf(line, "plugin %d child %d", &plugin, &child); err != nil {
			t.Fatalf("plugin wrote %q, want its pid and its child's", line)
		}
	case err := <-ran:
		t.Fatalf("plugin run ended before it started its child: %v", err)
	}
	cancel()
	if err := <-ran; err == nil {
		t.Errorf("canceled run of a hanging plugin succeeded")
	}
	waitKilled(t, "the plugin's child", child)
}

// TestExecPluginDiesWithItsParent: a plugin whose parent is killed (no
// context ends, nothing runs in the parent any more) is killed too.
func TestExecPluginDiesWithItsParent(t *testing.T) {
	becomeSubreaper(t)
	dir := t.TempDir()
	host := exec.Command(os.Args[0])
	host.Env = append(os.Environ(), "KUBELOOP_TEST_EXEC_HOST="+dir)
	out, err := host.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		host.Process.Kill()
		host.Wait()
		t.Fatalf("host ended before its plugin started: %v", sc.Err())
	}
	var plugin, child int
	if _, err := fmt.Sscanf(sc.Text(), "plugin %d child %d", &plugin, &child); err != nil {
		host.Process.Kill()
		host.Wait()
		t.Fatalf("host wrote %q, want the plugin's pid and its child's", sc.Text())
	}
	host.Process.Kill()
	host.Wait()
	waitKilled(t, "the plugin of a killed process", plugin)
	// The plugin's own child is the plugin's to end; here the test's.
	syscall.Kill(child, syscall.SIGKILL)
	waitKilled(t, "the plugin's child", child)
}
