// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// ExecCredential API versions a plugin may speak.
const (
	execAPIVersionV1      = "client.authentication.k8s.io/v1"
	execAPIVersionV1beta1 = "client.authentication.k8s.io/v1beta1"
)

// Bounds on a plugin run.
const (
	// execTimeout bounds one run of a plugin. client-go sets no bound (a
	// hung plugin blocks its caller for ever); a plugin that kubeloop runs
	// is never interactive, and the usual ones (aws eks get-token,
	// gke-gcloud-auth-plugin, kubelogin with a cached refresh token)
	// answer within seconds, so a minute ends a hung run without cutting a
	// slow identity provider short.
	execTimeout = time.Minute
	// execMaxStdout bounds what a plugin may print: an ExecCredential is a
	// few kilobytes. A plugin that prints more is stopped at once.
	execMaxStdout = 1 << 20
	// execMaxStderr bounds what a plugin may write to its standard error,
	// which is passed on to this process's: messages for a person, even a
	// verbose log of one run, take far less. A plugin that writes more is
	// stopped at once, having passed on up to the bound.
	execMaxStderr = 1 << 20
	// execWaitDelay bounds the wait for a plugin's output once it has
	// exited or been stopped (a child it started may hold the pipe open).
	execWaitDelay = 5 * time.Second
)

// execAuth runs a credential plugin and caches the credential it prints
// until the credential expires or the server rejects it. Concurrent callers
// share one run; a run has a lifetime of its own, bounded by timeout,
// which no caller's context shortens (see [flightGroup]).
type execAuth struct {
	cfg     ExecConfig
	cluster *execCluster // sent in KUBERNETES_EXEC_INFO; nil unless ProvideClusterInfo
	caFile  string       // read into cluster at each run when the CA is a file
	conns   *connTracker // nil when the caller's Transport carries requests
	timeout time.Duration
	// stderr receives the plugin's standard error: this process's, as
	// client-go and kubectl do, never an error message or a log.
	stderr io.Writer

	runs flightGroup[*execCredential] // under the key ""

	mu      sync.Mutex      // guards the fields below
	cred    *execCredential // the last credential the plugin gave; nil before the first run
	invalid bool            // cred was rejected by the server
	// rotated is set by a run whose client certificate differs from the
	// one before, until a caller takes it (see takeRotated).
	rotated bool
}

// execCredential is what a plugin run gave. It is never modified.
type execCredential struct {
	token  string
	cert   *tls.Certificate
	expiry time.Time // zero: valid until the server rejects it
}

// validAt reports whether c may still be used at now.
func (c *execCredential) validAt(now time.Time) bool {
	return c.expiry.IsZero() || now.Before(c.expiry)
}

// same reports whether c and o hold the same token and certificate.
func (c *execCredential) same(o *execCredential) bool {
	return c.token == o.token && sameCert(c.cert, o.cert)
}

func sameCert(a, b *tls.Certificate) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.Certificate) == 0 || len(b.Certificate) == 0 {
		return len(a.Certificate) == len(b.Certificate)
	}
	return bytes.Equal(a.Certificate[0], b.Certificate[0])
}

// newExecAuth checks c.Exec; it runs nothing.
func newExecAuth(c *Config) (*execAuth, error) {
	a := &execAuth{cfg: *c.Exec, timeout: execTimeout, stderr: os.Stderr}
	if a.cfg.Command == "" {
		return nil, errors.New("config: Exec.Command is empty")
	}
	switch a.cfg.APIVersion {
	case "":
		a.cfg.APIVersion = execAPIVersionV1
	case execAPIVersionV1, execAPIVersionV1beta1:
	default:
		return nil, errs.Errorf("config: Exec.APIVersion %q: want %s or %s", a.cfg.APIVersion, execAPIVersionV1, execAPIVersionV1beta1)
	}
	switch a.cfg.InteractiveMode {
	case "", "Never", "IfAvailable":
	case "Always":
		return nil, errs.Errorf("config: credential plugin %q wants a terminal (interactiveMode Always), which kubeloop never has", a.cfg.Command)
	default:
		return nil, errs.Errorf("config: Exec.InteractiveMode %q: want Never, IfAvailable or Always", a.cfg.InteractiveMode)
	}
	if a.cfg.ProvideClusterInfo {
		a.cluster = &execCluster{
			Server:                   c.Host,
			TLSServerName:            c.TLS.ServerName,
			InsecureSkipTLSVerify:    c.TLS.Insecure,
			CertificateAuthorityData: c.TLS.CAData,
			ProxyURL:                 c.ProxyURL,
		}
		if len(c.TLS.CAData) == 0 {
			a.caFile = c.TLS.CAFile
		}
	}
	return a, nil
}

// credential returns a valid credential, running the plugin when there is
// none, or waiting for the run under way; the wait ends with ctx, the run
// does not.
func (a *execAuth) credential(ctx context.Context) (*execCredential, error) {
	if c := a.current(time.Now()); c != nil {
		return c, nil
	}
	c, err := a.runs.do(ctx, "", a.timeout, a.run)
	if err != nil {
		return nil, errs.Errorf("run credential plugin %q: %w", a.cfg.Command, err)
	}
	return c, nil
}

// takeRotated reports whether a run changed the client certificate since
// the last call: the caller told so alone should close the connections
// opened with the old one.
func (a *execAuth) takeRotated() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.rotated
	a.rotated = false
	return r
}

// run runs the plugin, unless a run that ended since the caller looked
// left a valid credential, and caches what it gives.
func (a *execAuth) run(ctx context.Context) (*execCredential, error) {
	if c := a.current(time.Now()); c != nil {
		return c, nil
	}
	c, err := a.exec(ctx)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	if a.cred != nil && !sameCert(a.cred.cert, c.cert) {
		a.rotated = true
	}
	a.cred, a.invalid = c, false
	a.mu.Unlock()
	return c, nil
}

// current returns the cached credential when it is valid at now.
func (a *execAuth) current(now time.Time) *execCredential {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cred == nil || a.invalid || !a.cred.validAt(now) {
		return nil
	}
	return a.cred
}

// invalidate drops c, which the server rejected, unless a newer credential
// replaced it already.
func (a *execAuth) invalidate(c *execCredential) {
	a.mu.Lock()
	if a.cred == c {
		a.invalid = true
	}
	a.mu.Unlock()
}

// closeConns closes the transport's connections, if it tracks them.
func (a *execAuth) closeConns() {
	if a.conns != nil {
		a.conns.closeAll()
	}
}

// Errors of a plugin stopped for writing too much.
var (
	errOutputTooLarge = errs.Errorf("its output passed %d bytes: stopped", execMaxStdout)
	errStderrTooLarge = errs.Errorf("its standard error passed %d bytes: stopped", execMaxStderr)
)

// exec runs the plugin once, within ctx, and parses what it prints. Its
// errors never quote the output (it holds the credential) nor the
// standard error (which goes to a.stderr).
//
// The plugin runs in a process group of its own (on Unix), and the whole
// group is killed when ctx ends, when the run passes its bound or when
// the plugin writes too much, so that a child it started does not live
// on. On Linux the plugin is also killed when this process dies, however
// it dies (the parent-death signal); its own children are then left to
// it. On Windows only the plugin itself is killed.
func (a *execAuth) exec(ctx context.Context) (*execCredential, error) {
	info, err := a.execInfo()
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	cmd := exec.CommandContext(ctx, a.cfg.Command, a.cfg.Args...)
	cmd.Env = os.Environ()
	for _, e := range a.cfg.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	cmd.Env = append(cmd.Env, "KUBERNETES_EXEC_INFO="+string(info))
	var stdout bytes.Buffer
	cmd.Stdin = nil
	cmd.Stdout = &cappedWriter{w: &stdout, left: execMaxStdout, err: errOutputTooLarge, stop: stop}
	cmd.Stderr = &cappedWriter{w: a.stderr, left: execMaxStderr, err: errStderrTooLarge, stop: stop}
	cmd.WaitDelay = execWaitDelay
	inOwnGroup(cmd)
	// Linux sends the parent-death signal when the thread that started
	// the plugin ends, not the process: the thread stays with this
	// goroutine, which stays until the plugin has exited.
	runtime.LockOSThread()
	err = cmd.Run()
	runtime.UnlockOSThread()
	switch cause := context.Cause(ctx); {
	case cause == errOutputTooLarge || cause == errStderrTooLarge:
		return nil, cause
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, errs.Errorf("it did not finish within %v: stopped", a.timeout)
	case errors.Is(err, exec.ErrNotFound) && a.cfg.InstallHint != "":
		return nil, errs.Errorf("%w (%s)", err, strings.TrimSpace(a.cfg.InstallHint))
	case err != nil:
		if _, ok := errs.As[*exec.ExitError](err); ok {
			return nil, errs.Errorf("%w (its messages are on standard error)", err)
		}
		return nil, err
	}
	return parseExecCredential(stdout.Bytes(), a.cfg.APIVersion)
}

// cappedWriter passes on to w what is written to it, up to left bytes in
// all; the write that would pass that fails with err and calls stop with
// err, which stops the writer.
type cappedWriter struct {
	w    io.Writer
	left int
	err  error
	stop func(error)
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if len(p) > c.left {
		c.left = 0
		c.stop(c.err)
		return 0, c.err
	}
	c.left -= len(p)
	return c.w.Write(p)
}
