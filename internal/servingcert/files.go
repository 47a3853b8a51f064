// SPDX-License-Identifier: Apache-2.0

package servingcert

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// Files serves the certificate and key of two PEM files and reloads
// them when either file changes, so that a certificate rotated on disk (by
// cert-manager, or by the kubelet swapping a Secret volume's ..data
// symlink) is served without a restart.
//
// Each handshake stats both files (two stat calls, a few microseconds,
// against a handshake's milliseconds) and reads and parses them only when
// their modification time, size or identity (inode) changed since the
// last attempt. A pair that fails to load (a key that does not match the
// certificate because only one of the two files was written yet, a file
// missing for a moment) is logged once and the last good pair is served
// until the files change again.
type Files struct {
	certPath, keyPath string
	log               *slog.Logger

	mu sync.Mutex
	// cert is the last pair that loaded; nil until load succeeds once.
	cert *tls.Certificate
	// tried is the state of the files at the last load attempt, good or
	// bad: the files are read again only when their state differs.
	tried filePair
}

// filePair is the state of the certificate file and of the key file, as
// os.Stat gives it; nil for a file that could not be stat'ed.
type filePair struct {
	cert, key os.FileInfo
}

func (a filePair) same(b filePair) bool { return sameFile(a.cert, b.cert) && sameFile(a.key, b.key) }

// sameFile reports whether two states of a file are the same: same
// identity (inode), modification time and size.
func sameFile(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}

// NewFiles returns the reloader of the pair at certPath and keyPath,
// which logs its loads (info) and failed reloads (error) to log. It reads
// nothing: Load does.
func NewFiles(certPath, keyPath string, log *slog.Logger) *Files {
	return &Files{certPath: certPath, keyPath: keyPath, log: log}
}

// stat returns the state of both files. A file that cannot be stat'ed
// has a nil state, which differs from the state of any file.
func (r *Files) stat() filePair {
	var p filePair
	if fi, err := os.Stat(r.certPath); err == nil {
		p.cert = fi
	}
	if fi, err := os.Stat(r.keyPath); err == nil {
		p.key = fi
	}
	return p
}

// load reads and parses the pair, and on success makes it the one served.
// The state is taken before reading, so a write that lands during the read
// is seen as a change at the next handshake.
func (r *Files) load(state filePair) error {
	r.tried = state
	certPEM, err := os.ReadFile(r.certPath)
	if err != nil {
		return fmt.Errorf("read certificate: %w", err)
	}
	keyPEM, err := os.ReadFile(r.keyPath)
	if err != nil {
		return fmt.Errorf("read key: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("parse key pair %s and %s: %w", r.certPath, r.keyPath, err)
	}
	r.cert = &cert
	return nil
}

// Load loads the pair for the first time, so that a server fails before
// it listens when the files are missing or bad. The error names the
// paths.
func (r *Files) Load() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.load(r.stat()); err != nil {
		return fmt.Errorf("load serving certificate: %w", err)
	}
	r.log.Info("loaded serving certificate", "cert", r.certPath, "notAfter", notAfter(r.cert))
	return nil
}

// GetCertificate is the tls.Config hook: the current pair, reloaded first
// if the files changed.
func (r *Files) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	state := r.stat()
	if !state.same(r.tried) {
		if err := r.load(state); err != nil {
			r.log.Error("reload serving certificate; serving the previous one", "err", err)
		} else {
			r.log.Info("reloaded serving certificate", "cert", r.certPath, "notAfter", notAfter(r.cert))
		}
	}
	if r.cert == nil {
		return nil, errors.New("no serving certificate loaded")
	}
	return r.cert, nil
}

// notAfter is the expiry of the leaf, for the logs.
func notAfter(c *tls.Certificate) time.Time {
	if c == nil || c.Leaf == nil {
		return time.Time{}
	}
	return c.Leaf.NotAfter
}
