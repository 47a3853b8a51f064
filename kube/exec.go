// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ExecCredential API versions a plugin may speak.
const (
	execAPIVersionV1      = "client.authentication.k8s.io/v1"
	execAPIVersionV1beta1 = "client.authentication.k8s.io/v1beta1"
)

// Bounds on what a plugin may print: its output is read whole, and part of
// its standard error goes into error messages.
const (
	execMaxStdout = 1 << 20
	execMaxStderr = 4 << 10
	execStderrMsg = 512 // bytes of stderr quoted in an error
	// execWaitDelay bounds the wait for a plugin's output once it has
	// exited (a child it started may hold the pipe open).
	execWaitDelay = 5 * time.Second
)

// execAuth runs a credential plugin and caches the credential it prints
// until the credential expires or the server rejects it. Concurrent callers
// share one run: the plugin runs at most once at a time.
type execAuth struct {
	cfg     ExecConfig
	cluster *execCluster // sent in KUBERNETES_EXEC_INFO; nil unless ProvideClusterInfo
	caFile  string       // read into cluster at each run when the CA is a file
	conns   *connTracker // nil when the caller's Transport carries requests

	run chan struct{} // holds a token while the plugin runs

	mu      sync.Mutex      // guards the fields below
	cred    *execCredential // the last credential the plugin gave; nil before the first run
	invalid bool            // cred was rejected by the server
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
	a := &execAuth{cfg: *c.Exec, run: make(chan struct{}, 1)}
	if a.cfg.Command == "" {
		return nil, errors.New("config: Exec.Command is empty")
	}
	switch a.cfg.APIVersion {
	case "":
		a.cfg.APIVersion = execAPIVersionV1
	case execAPIVersionV1, execAPIVersionV1beta1:
	default:
		return nil, fmt.Errorf("config: Exec.APIVersion %q: want %s or %s", a.cfg.APIVersion, execAPIVersionV1, execAPIVersionV1beta1)
	}
	switch a.cfg.InteractiveMode {
	case "", "Never", "IfAvailable":
	case "Always":
		return nil, fmt.Errorf("config: credential plugin %q wants a terminal (interactiveMode Always), which kubeloop never has", a.cfg.Command)
	default:
		return nil, fmt.Errorf("config: Exec.InteractiveMode %q: want Never, IfAvailable or Always", a.cfg.InteractiveMode)
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
// none. rotated reports that this call ran the plugin and the client
// certificate changed, so connections opened with the old one should be
// closed.
func (a *execAuth) credential(ctx context.Context) (cred *execCredential, rotated bool, err error) {
	if c := a.current(time.Now()); c != nil {
		return c, false, nil
	}
	select {
	case a.run <- struct{}{}:
	case <-ctx.Done():
		return nil, false, fmt.Errorf("run credential plugin %q: %w", a.cfg.Command, ctx.Err())
	}
	defer func() { <-a.run }()
	if c := a.current(time.Now()); c != nil {
		return c, false, nil // another caller ran the plugin meanwhile
	}
	c, err := a.exec(ctx)
	if err != nil {
		return nil, false, err
	}
	a.mu.Lock()
	old := a.cred
	a.cred, a.invalid = c, false
	a.mu.Unlock()
	return c, old != nil && !sameCert(old.cert, c.cert), nil
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

// exec runs the plugin once and parses what it prints. Its errors name the
// command and quote the start of its standard error, never its output.
func (a *execAuth) exec(ctx context.Context) (*execCredential, error) {
	info, err := a.execInfo()
	if err != nil {
		return nil, fmt.Errorf("run credential plugin %q: %w", a.cfg.Command, err)
	}
	cmd := exec.CommandContext(ctx, a.cfg.Command, a.cfg.Args...)
	cmd.Env = os.Environ()
	for _, e := range a.cfg.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	cmd.Env = append(cmd.Env, "KUBERNETES_EXEC_INFO="+string(info))
	stdout := &cappedBuffer{max: execMaxStdout}
	stderr := &cappedBuffer{max: execMaxStderr}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, stdout, stderr
	cmd.WaitDelay = execWaitDelay
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) && a.cfg.InstallHint != "" {
			return nil, fmt.Errorf("run credential plugin %q: %w (%s)", a.cfg.Command, err, strings.TrimSpace(a.cfg.InstallHint))
		}
		if msg := stderr.excerpt(); msg != "" {
			return nil, fmt.Errorf("run credential plugin %q: %w; stderr: %s", a.cfg.Command, err, msg)
		}
		return nil, fmt.Errorf("run credential plugin %q: %w", a.cfg.Command, err)
	}
	if stdout.over {
		return nil, fmt.Errorf("run credential plugin %q: its output is larger than %d bytes", a.cfg.Command, execMaxStdout)
	}
	c, err := parseExecCredential(stdout.buf, a.cfg.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("run credential plugin %q: %w", a.cfg.Command, err)
	}
	return c, nil
}

// cappedBuffer keeps the first max bytes written to it and drops the rest,
// so that a plugin cannot fill the memory; writes never fail.
type cappedBuffer struct {
	buf  []byte
	max  int
	over bool // bytes were dropped
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	room := b.max - len(b.buf)
	if len(p) > room {
		b.buf = append(b.buf, p[:room]...)
		b.over = true
	} else {
		b.buf = append(b.buf, p...)
	}
	return len(p), nil
}

// excerpt returns the start of the buffer on one line, for an error.
func (b *cappedBuffer) excerpt() string {
	s := strings.Join(strings.Fields(string(b.buf)), " ")
	if len(s) > execStderrMsg {
		return s[:execStderrMsg] + " [truncated]"
	}
	if b.over {
		return s + " [truncated]"
	}
	return s
}
