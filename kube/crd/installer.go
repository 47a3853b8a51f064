// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/kubeloop/kubeloop/kube"
)

// Installer installs CRDs when a manager starts, before anything reads
// them: it is a manager runnable of the caches' kind (it has
// WaitForSync), which the manager starts first, with its caches, and
// which everything else (controllers, warm-ups, runnables of every
// replica) waits for:
//
//	defs, err := crd.For(&Widget{}, crd.Options{})
//	...
//	if err := mgr.Add(crd.NewInstaller(mgr.APIClient(), defs)); err != nil { ... }
//
// It runs on every replica (NeedLeaderElection is false; the writes are
// idempotent), and calls [Install]: create or update, then wait until
// Established. A failure stops the manager with the error. Do not
// declare the CRDs' kinds in the manager's cache options (cache.ByObject):
// those informers start with the caches, before the CRDs exist; a
// controller's informers start after the wait.
//
// With [Installer.WithLogger] it says at info level what it did to each
// CRD (created, updated, unchanged) and when each is established, with
// the CRD's name under the key "crd".
//
// An Installer is started once.
type Installer struct {
	client *kube.Client
	crds   []*CustomResourceDefinition
	log    *slog.Logger // nil logs nothing

	done chan struct{} // closed when Install has returned
	err  error         // Install's result; read after done is closed
}

// errNoInstaller is what the methods of an Installer that NewInstaller
// did not make (a nil pointer or a zero Installer) return.
var errNoInstaller = errors.New("crd.Installer: use crd.NewInstaller")

// NewInstaller returns the runnable that installs crds through c (the
// manager's API client: the install is not cached). It does no I/O.
func NewInstaller(c *kube.Client, crds ...*CustomResourceDefinition) *Installer {
	return &Installer{client: c, crds: crds, done: make(chan struct{})}
}

// WithLogger makes i log what it did on log (nil: nowhere), and returns
// i. Call it before the manager starts i.
func (i *Installer) WithLogger(log *slog.Logger) *Installer {
	if i == nil {
		return nil // Start reports it
	}
	i.log = log
	return i
}

// Start installs the CRDs and waits until they are established, then
// until ctx is done. It returns Install's error, or nil.
func (i *Installer) Start(ctx context.Context) error {
	if i == nil || i.done == nil {
		return errNoInstaller
	}
	i.err = install(ctx, i.client, i.log, i.crds)
	close(i.done)
	if i.err != nil {
		if ctx.Err() != nil && errors.Is(i.err, ctx.Err()) {
			return nil // stopped while installing: not a failure
		}
		return i.err
	}
	<-ctx.Done()
	return nil
}

// WaitForSync returns once the CRDs are established (nil) or their
// install failed (its error), or ctx is done.
func (i *Installer) WaitForSync(ctx context.Context) error {
	if i == nil || i.done == nil {
		return errNoInstaller
	}
	select {
	case <-i.done:
		return i.err
	case <-ctx.Done():
		return fmt.Errorf("wait for the CRDs to be installed: %w", ctx.Err())
	}
}

// NeedLeaderElection reports false: every replica installs, so that a
// standby's caches can sync.
func (i *Installer) NeedLeaderElection() bool { return false }

// Name names the runnable in the manager's logs and errors.
func (i *Installer) Name() string { return "crd-installer" }
