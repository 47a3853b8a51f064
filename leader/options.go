// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// Defaults, as controller-runtime sets them.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// JitterFactor is client-go's and controller-runtime's: their candidates
// wait up to (1+JitterFactor)×RetryPeriod between attempts, and their
// validation, which [New] keeps so that the same settings are accepted,
// wants RenewDeadline > JitterFactor×RetryPeriod. kubeloop's candidates
// wait at most RetryPeriod.
const JitterFactor = 1.2

// Options says which Lease to contend for, as whom, and how often.
type Options struct {
	// Client reads and writes the Lease. Required. Give the elector a
	// client of its own: in a client shared with busy controllers, renewals
	// wait their turn in the rate limit.
	Client *kube.Client
	// Namespace and LeaseName name the Lease (a manager's
	// LeaderElection.LeaseName, controller-runtime's LeaderElectionID).
	// Required.
	Namespace, LeaseName string
	// Identity is written into holderIdentity while this candidate leads. It
	// must be unique among the candidates. Empty means [DefaultIdentity].
	Identity string

	// LeaseDuration is written into the Lease (leaseDurationSeconds, so whole
	// seconds). Other candidates wait that long, on their own clocks, after
	// they last saw the record change before they take it over. Zero means
	// [DefaultLeaseDuration].
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader keeps leading without a
	// successful renew. It must be shorter than LeaseDuration: the
	// difference is the margin that keeps two leaders apart. Zero means
	// [DefaultRenewDeadline].
	RenewDeadline time.Duration
	// RetryPeriod is the wait between renewals of the leader, and the base
	// of the jittered wait between attempts of the other candidates. Zero
	// means [DefaultRetryPeriod].
	RetryPeriod time.Duration

	// ReleaseOnCancel makes the leader clear holderIdentity when Run's
	// context is done, after OnStartedLeading has returned, so that a
	// successor takes over within one poll instead of waiting out the lease.
	// Set it only if the work OnStartedLeading does has stopped by the time
	// it returns.
	ReleaseOnCancel bool

	// Logger receives transitions (key "lease", "identity", "holder") at
	// info level, failed renewals at warn level and other failed calls at
	// debug level (key "err"). Nil discards them.
	Logger *slog.Logger

	// OnStartedLeading runs on its own goroutine when this candidate becomes
	// leader. Its ctx is cancelled the moment leadership ends: lost, renew
	// deadline passed, or Run's context done.
	OnStartedLeading func(ctx context.Context)
	// OnStoppedLeading runs on its own goroutine after leadership ended, if
	// this candidate led: once OnStartedLeading has returned and, with
	// ReleaseOnCancel, the Lease has been released. (The moment leadership
	// ends is when OnStartedLeading's context is cancelled.)
	OnStoppedLeading func()
	// OnNewLeader runs when the holder this candidate observes changes,
	// including to itself, and to "" when the Lease is released. Calls are
	// made one at a time, in order, from one goroutine; if the holder changes
	// again while a call runs, only the latest holder is reported next.
	OnNewLeader func(identity string)
}

// DefaultIdentity returns the hostname, "_" and a random UUID, as
// controller-runtime builds a leader election identity. It reads the
// hostname and the random source and fails only if they do.
func DefaultIdentity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("default identity: %w", err)
	}
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		return "", fmt.Errorf("default identity: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return fmt.Sprintf("%s_%x-%x-%x-%x-%x", host, u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]), nil
}

// withDefaults returns c with zero durations and the empty identity filled.
func (c Options) withDefaults() (Options, error) {
	err := fillDefaults(&c.Identity, &c.LeaseDuration, &c.RenewDeadline, &c.RetryPeriod, &c.Logger)
	return c, err
}

// fillDefaults fills the settings the elector and a ring member share:
// zero durations, the empty identity and the nil logger.
func fillDefaults(identity *string, lease, renew, retry *time.Duration, logger **slog.Logger) error {
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{lease, DefaultLeaseDuration}, {renew, DefaultRenewDeadline}, {retry, DefaultRetryPeriod}} {
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if *logger == nil {
		*logger = slog.New(slog.DiscardHandler)
	}
	if *identity == "" {
		id, err := DefaultIdentity()
		if err != nil {
			return fmt.Errorf("Identity is empty and the default failed: %w", err)
		}
		*identity = id
	}
	return nil
}

// validate checks a configuration with defaults filled. Every error names
// the field and its value.
func (c *Options) validate() error {
	var errs []error
	if c.Client == nil {
		errs = append(errs, errors.New("Client is nil"))
	}
	if msg := checkName(c.Namespace, 63, false); msg != "" {
		errs = append(errs, fmt.Errorf("Namespace %q %s", c.Namespace, msg))
	}
	if msg := checkName(c.LeaseName, 253, true); msg != "" {
		errs = append(errs, fmt.Errorf("LeaseName %q %s", c.LeaseName, msg))
	}
	if c.Identity == "" {
		errs = append(errs, errors.New(`Identity "" must not be empty`))
	}
	errs = append(errs, checkDurations(c.LeaseDuration, c.RenewDeadline, c.RetryPeriod)...)
	return errors.Join(errs...)
}

// checkDurations checks the three durations of a Lease protocol, the
// elector's or a ring member's, and says what is wrong with each.
func checkDurations(lease, renew, retry time.Duration) []error {
	var errs []error
	switch {
	case lease < time.Second:
		errs = append(errs, fmt.Errorf("LeaseDuration %v must be at least 1s", lease))
	case lease%time.Second != 0:
		errs = append(errs, fmt.Errorf("LeaseDuration %v must be whole seconds (the Lease stores leaseDurationSeconds)", lease))
	case lease > time.Duration(1<<31-1)*time.Second:
		errs = append(errs, fmt.Errorf("LeaseDuration %v does not fit leaseDurationSeconds (int32)", lease))
	}
	if retry <= 0 {
		errs = append(errs, fmt.Errorf("RetryPeriod %v must be positive", retry))
	}
	if renew <= 0 {
		errs = append(errs, fmt.Errorf("RenewDeadline %v must be positive", renew))
	} else {
		if lease <= renew {
			errs = append(errs, fmt.Errorf("LeaseDuration %v must be longer than RenewDeadline %v", lease, renew))
		}
		if jittered := time.Duration(JitterFactor * float64(retry)); retry > 0 && renew <= jittered {
			errs = append(errs, fmt.Errorf("RenewDeadline %v must be longer than RetryPeriod %v × JitterFactor %v = %v", renew, retry, JitterFactor, jittered))
		}
	}
	return errs
}

// checkName returns why s is not a DNS-1123 label (at most max bytes) or,
// with dots, subdomain; "" if it is one.
func checkName(s string, max int, dots bool) string {
	what := "a DNS-1123 label"
	if dots {
		what = "a DNS-1123 subdomain"
	}
	switch {
	case s == "":
		return "must not be empty"
	case len(s) > max:
		return fmt.Sprintf("must be at most %d characters", max)
	}
	for _, part := range strings.Split(s, ".") {
		if !dots && part != s {
			return "must be " + what + " (lower case letters, digits and '-')"
		}
		if part == "" || !isAlnum(part[0]) || !isAlnum(part[len(part)-1]) {
			return "must be " + what + " (start and end with a lower case letter or digit)"
		}
		for i := range len(part) {
			if !isAlnum(part[i]) && part[i] != '-' {
				return "must be " + what + " (lower case letters, digits, '-' and '.')"
			}
		}
	}
	return ""
}

func isAlnum(b byte) bool { return 'a' <= b && b <= 'z' || '0' <= b && b <= '9' }
