// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is a ring's configuration and the Member type a process runs:
// see the package documentation for the protocol and its guarantees.

// DefaultRanges is the number of ranges a ring cuts the hash space into
// when RingOptions.Ranges is zero: enough to spread over a few dozen
// members, few enough that a member's Lease and selector stay short.
const DefaultRanges = 64

// The label and annotations of a ring member's Lease.
const (
	// RingLabel holds the ring's name: members find each other by it.
	RingLabel = "kubeloop.dev/ring"
	// RangesAnnotation lists the ranges the member claims, holds or is
	// draining, as COUNT:RUNS ("64:0-3,9"): no other member may start them.
	RangesAnnotation = "kubeloop.dev/ring-ranges"
	// LeavingAnnotation is "true" once the member is leaving: the others
	// take its ranges over as it releases them.
	LeavingAnnotation = "kubeloop.dev/ring-leaving"
	// WriterAnnotation is a token a member draws when Run starts and
	// writes with every write of its Lease: a Lease carrying another was
	// written by another process.
	WriterAnnotation = "kubeloop.dev/ring-writer"
)

// PeerTrust bounds how long a ring member, or an election candidate,
// trusts another's Lease: for the leaseDurationSeconds written in it, but
// at most PeerTrust times its own LeaseDuration, so that a Lease nobody
// renews cannot keep its claims, or leadership, for longer (2147483647
// seconds are 68 years).
const PeerTrust = 4

// ErrIdentityShared is wrapped by the error [Member.Run] returns when
// another process writes the member's Lease: two members run with one
// identity.
var ErrIdentityShared = errors.New("two processes share the identity")

// RingOptions says which ring to join, as whom, how the hash space is cut,
// how often to renew, and what to do with a range.
type RingOptions struct {
	// Client reads and writes the ring's Leases. Required. As for the
	// elector, give the member a client of its own.
	Client *kube.Client
	// Namespace holds the ring's Leases. Required.
	Namespace string
	// Ring names the ring: the value of [RingLabel] on the Lease of every
	// member, and the prefix of their names. A DNS-1123 label of at most 63
	// characters. Required.
	Ring string
	// Identity names this member in its Lease (holderIdentity). It must be
	// unique among the live processes of the ring: a second process with
	// it stops, its Run returning an error wrapping [ErrIdentityShared].
	// Empty means [DefaultIdentity].
	Identity string
	// Ranges is how many equal ranges the hash space is cut into, at most
	// [MaxRanges]; every member of a ring must use the same number. Zero
	// means [DefaultRanges].
	Ranges int

	// LeaseDuration, RenewDeadline and RetryPeriod are the elector's (see
	// [Options]) and have its defaults: a member renews its Lease every
	// RetryPeriod, stops all work RenewDeadline after its last successful
	// renew, and is gone for the others LeaseDuration after they last saw
	// its Lease change.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration

	// Field is the shard field the selectors given to Work hash:
	// [kube.ShardByUID] (the default, when empty) or
	// [kube.ShardByNamespace].
	Field kube.ShardField

	// Work is called on a goroutine of its own when this member starts
	// holding a range, with the range's shard selector
	// ([ShardSelector](Field, range)), and must return once ctx is
	// cancelled, having finished what it started on the range's objects:
	// the member publishes the release of the range only when Work has
	// returned. ctx is cancelled when the range moves to another member,
	// when Run's context is done, and at once when this member's renewals
	// stop succeeding (RenewDeadline after the last one): Work must then
	// stop within LeaseDuration - RenewDeadline, after which another member
	// may start the range. If Work returns before ctx is done (with an
	// error, logged as a warning), the member releases the range and
	// claims it again after RetryPeriod; an error returned once ctx is
	// done, or once Run's context is (the process is stopping, and what
	// Work reads, a cache, may stop first), is how Work stopped, and not
	// logged. It is the signature of a sharded controller's work
	// (controller.Shards.Work). Required.
	Work func(ctx context.Context, sel kube.ShardSelector) error

	// OnHeld, when set, is called each time this member starts holding a
	// range (just before its Work starts), with how long the range waited
	// since the assignment gave it to this member: since this member saw
	// the range's previous holder leave or expire, or a change of
	// membership move the range here. It is called on the member's loop
	// and must return at once; it is how the manager times handovers.
	OnHeld func(r Range, waited time.Duration)

	// Logger receives joins, leaves and range moves (keys "ring",
	// "identity", "range", "member") at info level, failed calls at warn or
	// debug level (key "err"), and Leases of the ring it ignores at warn
	// level, once per Lease and reason (key "lease"). Nil discards them.
	Logger *slog.Logger
}

// withDefaults returns c with the zero fields that have defaults filled.
func (c RingOptions) withDefaults() (RingOptions, error) {
	if c.Ranges == 0 {
		c.Ranges = DefaultRanges
	}
	if c.Field == "" {
		c.Field = kube.ShardByUID
	}
	err := fillDefaults(&c.Identity, &c.LeaseDuration, &c.RenewDeadline, &c.RetryPeriod, &c.Logger)
	return c, err
}

// validate checks a configuration with defaults filled; every error names
// the field and its value.
func (c *RingOptions) validate() error {
	var errs []error
	if c.Client == nil {
		errs = append(errs, errors.New("Client is nil"))
	}
	if c.Work == nil {
		errs = append(errs, errors.New("Work is nil"))
	}
	if msg := checkName(c.Namespace, 63, false); msg != "" {
		errs = append(errs, fmt.Errorf("Namespace %q %s", c.Namespace, msg))
	}
	if msg := checkName(c.Ring, 63, false); msg != "" {
		errs = append(errs, fmt.Errorf("Ring %q %s", c.Ring, msg))
	}
	if c.Field != kube.ShardByUID && c.Field != kube.ShardByNamespace {
		errs = append(errs, fmt.Errorf("Field %q: want %q or %q", c.Field, kube.ShardByUID, kube.ShardByNamespace))
	}
	if c.Ranges < 1 || c.Ranges > MaxRanges {
		errs = append(errs, fmt.Errorf("Ranges %d must be between 1 and %d", c.Ranges, MaxRanges))
	}
	errs = append(errs, checkDurations(c.LeaseDuration, c.RenewDeadline, c.RetryPeriod)...)
	return errors.Join(errs...)
}

// MemberLeaseName returns the name of the Lease of member identity in
// ring: the ring's name and the FNV-1a hash of the identity in hex.
func MemberLeaseName(ring, identity string) string {
	return fmt.Sprintf("%s-%016x", ring, kube.ShardHash(identity))
}

// Member is one process's membership of a ring. Make it with [NewMember],
// run it with [Member.Run]; [Member.Status] and [Member.Identity] are safe
// to call from any goroutine at any time.
type Member struct {
	opts RingOptions // defaults filled, validated
	name string      // of this member's Lease
	log  *slog.Logger

	started atomic.Bool

	// The rest is owned by the goroutine running Run; no lock.
	state   []rangeState     // by range index
	rested  []time.Time      // a Work that returned by itself: no claim before
	claimed []time.Time      // when each range last became claimed
	written []bool           // the ranges the Lease on the server publishes for sure
	peers   map[string]*peer // by Lease name, from the last list that succeeded
	own     *kube.Lease      // this member's Lease as last stored or read; nil if unknown
	joined  time.Time        // acquireTime: when Run started
	leaving bool
	// stopping is Run's ctx.Done(): once it is closed the process is
	// shutting down, and what a Work depends on (a cache) may stop before
	// the member asks the Work to.
	stopping <-chan struct{}
	// token is this process's WriterAnnotation, drawn when Run starts;
	// wrote says a write of the Lease by this process is known to have
	// landed since.
	token string
	wrote bool
	// prior is what the member saw of its Lease while another process
	// wrote it last and this one never did; nil otherwise. While it is
	// trusted the member writes nothing.
	prior *peer
	// fatal, once set, ends Run: another process wrote this member's
	// Lease. It wraps ErrIdentityShared.
	fatal error
	// ignored holds the reasons each Lease of the last list is ignored
	// for, by Lease name (those with none left out); counted adds up the
	// reasons found, once per Lease and reason.
	ignored map[string]ignoreSet
	counted IgnoredLeases
	// sent is when the last successful write was sent; wroteLeaving says it
	// carried the leaving mark.
	sent         time.Time
	wroteLeaving bool

	// termDone is closed when the current term ends; nil between terms. A
	// term starts with a successful write and ends RenewDeadline after the
	// last one, when deadline fires: it cancels every Work at once, even
	// while the loop waits for a stuck call.
	termDone chan struct{}
	deadline *time.Timer

	returned chan int // Work goroutines say they returned; capacity Ranges
	works    sync.WaitGroup
	// cancels holds the cancel functions of the Works of held and draining
	// ranges, by range index; guarded by workMu, for the deadline's timer.
	workMu  sync.Mutex
	cancels []context.CancelFunc

	mu     sync.Mutex
	status RingStatus
}

// RingStatus is what a member knows of its ring at one moment.
type RingStatus struct {
	// Members are the identities of the live members this member counts
	// (itself included unless it is leaving), sorted.
	Members []string
	// Assigned are the ranges the assignment gives this member.
	Assigned []Range
	// Held are the ranges whose Work runs and has not been asked to stop.
	Held []Range
	// Draining are the ranges whose Work was asked to stop and has not
	// returned yet.
	Draining []Range
	// Claimed are assigned ranges published as claimed, waiting for their
	// previous holder to release them or to expire.
	Claimed []Range
	// Ignored counts the ring's Leases this member ignored, wholly or in
	// part, since Run started.
	Ignored IgnoredLeases
}

// IgnoredLeases counts Leases of a ring (its label, in its namespace) a
// member ignored, by reason. A Lease counts once for each reason, when the
// member first finds the reason in it (and again if the reason goes and
// comes back), however many times it lists it.
type IgnoredLeases struct {
	// Unreadable: the ranges annotation cannot be read. The Lease claims
	// nothing and its holder is assigned nothing.
	Unreadable uint64
	// Foreign: the Lease is not named after the holder it names
	// ([MemberLeaseName]), so no member wrote it. It claims nothing and
	// its holder is assigned nothing.
	Foreign uint64
	// LongDuration: its leaseDurationSeconds is longer than [PeerTrust]
	// times the member's LeaseDuration. It is trusted that long only.
	LongDuration uint64
}

// NewMember checks opts, fills its defaults, and returns a member. It does
// no I/O (beyond reading the hostname for a default Identity) and starts no
// goroutine.
func NewMember(opts RingOptions) (*Member, error) {
	opts, err := opts.withDefaults()
	if err == nil {
		err = opts.validate()
	}
	if err != nil {
		return nil, fmt.Errorf("new member of ring %s/%s: %w", opts.Namespace, opts.Ring, err)
	}
	n := opts.Ranges
	return &Member{
		opts:     opts,
		name:     MemberLeaseName(opts.Ring, opts.Identity),
		log:      opts.Logger.With("ring", opts.Namespace+"/"+opts.Ring, "identity", opts.Identity),
		state:    make([]rangeState, n),
		cancels:  make([]context.CancelFunc, n),
		rested:   make([]time.Time, n),
		claimed:  make([]time.Time, n),
		written:  make([]bool, n),
		peers:    map[string]*peer{},
		returned: make(chan int, n),
	}, nil
}

// Identity returns the identity this member writes into its Lease.
func (m *Member) Identity() string {
	if m == nil {
		return ""
	}
	return m.opts.Identity
}

// Status returns a copy of what the member knew after its last step.
func (m *Member) Status() RingStatus {
	if m == nil {
		return RingStatus{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.status
	s.Members = slices.Clone(s.Members)
	s.Assigned, s.Held = slices.Clone(s.Assigned), slices.Clone(s.Held)
	s.Draining, s.Claimed = slices.Clone(s.Draining), slices.Clone(s.Claimed)
	return s
}

// publishStatus stores what the step just computed for Status.
func (m *Member) publishStatus(members []string, mine []bool) {
	var s RingStatus
	s.Members = members
	s.Ignored = m.counted
	for i, st := range m.state {
		r := Range{Index: i, Count: m.opts.Ranges}
		if mine[i] {
			s.Assigned = append(s.Assigned, r)
		}
		switch st {
		case rangeHeld:
			s.Held = append(s.Held, r)
		case rangeDraining:
			s.Draining = append(s.Draining, r)
		case rangeClaimed:
			s.Claimed = append(s.Claimed, r)
		}
	}
	m.mu.Lock()
	m.status = s
	m.mu.Unlock()
}
