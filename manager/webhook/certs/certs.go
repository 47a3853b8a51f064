// SPDX-License-Identifier: Apache-2.0

package certs

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// recheck bounds the time between two looks at the Secret's
// certificates when nothing changes.
const recheck = time.Hour

// Defaults of [Options].
const (
	DefaultCAValidity = 10 * 365 * 24 * time.Hour
	DefaultValidity   = 365 * 24 * time.Hour
	DefaultOverlap    = time.Hour
)

// Options configure [Certs].
type Options struct {
	// Secret is the Secret that holds the CA and the serving certificate,
	// shared by every replica: Namespace and Name. It is created when
	// missing, as a kubernetes.io/tls Secret with the keys tls.crt,
	// tls.key (the serving certificate and key), ca.crt (the CAs
	// trusted, the caBundle) and ca.key (the key of the newest CA). Keys
	// of its own are left as they are. Set Secret or Dir.
	Secret kube.Key
	// Dir, in place of Secret, is a directory that holds the same four
	// files, for a program that runs as one process (nothing tells a
	// process that another changed them): created when missing, the
	// keys readable by the owner only, each file replaced whole
	// (renamed into place).
	Dir string
	// Service is the webhook's Service: the certificate is for
	// Name.Namespace.svc and Name.Namespace.svc.cluster.local. Leave it
	// empty for a webhook reached by URL only.
	Service kube.Key
	// DNSNames and IPAddresses are further names of the certificate, such
	// as 127.0.0.1 for a webhook that the API server calls by URL on
	// loopback. With Service, at least one name is required.
	DNSNames    []string
	IPAddresses []net.IP

	// CAValidity is how long a CA is valid: [DefaultCAValidity] (10
	// years) when zero. CARenewBefore is how long before its expiry a CA
	// is replaced by a new one: a third of CAValidity when zero.
	CAValidity, CARenewBefore time.Duration
	// Validity is how long a serving certificate is valid, never beyond
	// the CA that signs it: [DefaultValidity] (1 year) when zero.
	// RenewBefore is how long before its expiry it is replaced: a third
	// of Validity when zero (renewed at two thirds of its life, as
	// cert-manager renews by default).
	Validity, RenewBefore time.Duration
	// Overlap is how long a new CA is in the caBundle before it signs the
	// serving certificate, and how long the previous CA stays in the
	// caBundle after the serving certificate it signed is replaced:
	// [DefaultOverlap] (1 hour) when zero. It must be longer than the
	// time the leader's [Injector] and the API server take to see a
	// changed bundle (seconds), and than the time every replica takes to
	// see a changed Secret; it must be shorter than RenewBefore and
	// CARenewBefore.
	Overlap time.Duration

	// ValidatingWebhookConfigurations and MutatingWebhookConfigurations
	// name the configurations whose webhooks' clientConfig.caBundle the
	// [Injector] keeps equal to the CAs of the Secret;
	// CustomResourceDefinitions names the CRDs whose conversion webhook's
	// it keeps. A configuration or CRD that does not exist yet is
	// injected when it is created.
	ValidatingWebhookConfigurations []string
	MutatingWebhookConfigurations   []string
	CustomResourceDefinitions       []string

	// Logger receives the certificates made and the caBundles written
	// (info), and failures to read or write them (error); nil discards
	// them.
	Logger *slog.Logger
}

// Certs makes, rotates and serves the certificates of a webhook server,
// kept in a Secret that every replica shares. Make it with [New]; give it
// to webhook.Options.Certificates, whose server runs its Start and serves
// with [Certs.GetCertificate]; add [Certs.Injector] to the manager for
// the caBundles. See the package doc for what it guarantees.
type Certs struct {
	client *kube.Client
	// secret or dir holds the certificates: one is set.
	secret kube.Key
	dir    string
	pol    policy
	log    *slog.Logger

	vwcs, mwcs, crds []string

	mu sync.Mutex
	// cert is the serving certificate last read (from the Secret or the
	// directory), nil until one was read.
	cert *tls.Certificate
	// bundle is the ca.crt last read, nil until one was read.
	bundle []byte
	// changed is closed, and replaced, when bundle changes.
	changed chan struct{}
	// started is set by the first Start.
	started bool
}

// New checks opts and returns the certificates' keeper. It does no I/O.
func New(client *kube.Client, opts Options) (*Certs, error) {
	var errs []error
	if client == nil && (opts.Dir == "" || len(opts.ValidatingWebhookConfigurations)+len(opts.MutatingWebhookConfigurations)+len(opts.CustomResourceDefinitions) > 0) {
		errs = append(errs, errors.New("client is nil"))
	}
	switch {
	case opts.Dir != "" && opts.Secret != (kube.Key{}):
		errs = append(errs, fmt.Errorf("Secret %q and Dir %q are both set: want one", opts.Secret, opts.Dir))
	case opts.Dir != "":
	case opts.Secret.Namespace == "" || opts.Secret.Name == "":
		errs = append(errs, fmt.Errorf("Secret %q: want a namespace and a name (or a Dir)", opts.Secret))
	}
	var names []string
	if opts.Service.Name != "" || opts.Service.Namespace != "" {
		if opts.Service.Name == "" || opts.Service.Namespace == "" {
			errs = append(errs, fmt.Errorf("Service %q: want a namespace and a name", opts.Service))
		}
		svc := opts.Service.Name + "." + opts.Service.Namespace + ".svc"
		names = append(names, svc, svc+".cluster.local")
	}
	for _, n := range opts.DNSNames {
		if n == "" {
			errs = append(errs, errors.New("DNSNames holds an empty name"))
		}
		names = append(names, n)
	}
	if len(names) == 0 && len(opts.IPAddresses) == 0 {
		errs = append(errs, errors.New("Service, DNSNames and IPAddresses are empty: the certificate needs a name"))
	}
	for _, ip := range opts.IPAddresses {
		if ip.To16() == nil {
			errs = append(errs, fmt.Errorf("IPAddresses holds %q, not an address", ip))
		}
	}
	pol := policy{
		caName:        "kubeloop-webhook-ca",
		dnsNames:      names,
		ips:           opts.IPAddresses,
		caValidity:    orDefault(opts.CAValidity, DefaultCAValidity),
		validity:      orDefault(opts.Validity, DefaultValidity),
		overlap:       orDefault(opts.Overlap, DefaultOverlap),
		caRenewBefore: opts.CARenewBefore,
		renewBefore:   opts.RenewBefore,
	}
	if pol.caRenewBefore == 0 {
		pol.caRenewBefore = pol.caValidity / 3
	}
	if pol.renewBefore == 0 {
		pol.renewBefore = pol.validity / 3
	}
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"CAValidity", pol.caValidity}, {"CARenewBefore", pol.caRenewBefore}, {"Validity", pol.validity}, {"RenewBefore", pol.renewBefore}, {"Overlap", pol.overlap}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s %v is negative", d.field, d.v))
		}
	}
	if pol.caRenewBefore >= pol.caValidity {
		errs = append(errs, fmt.Errorf("CARenewBefore %v is not shorter than CAValidity %v", pol.caRenewBefore, pol.caValidity))
	}
	if pol.renewBefore >= pol.validity {
		errs = append(errs, fmt.Errorf("RenewBefore %v is not shorter than Validity %v", pol.renewBefore, pol.validity))
	}
	if pol.overlap >= pol.renewBefore || pol.overlap >= pol.caRenewBefore {
		errs = append(errs, fmt.Errorf("Overlap %v is not shorter than RenewBefore %v and CARenewBefore %v", pol.overlap, pol.renewBefore, pol.caRenewBefore))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("new webhook certificates: %w", err)
	}
	store := opts.Dir
	if store == "" {
		store = "secret/" + opts.Secret.String()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Certs{
		client:  client,
		secret:  opts.Secret,
		dir:     opts.Dir,
		pol:     pol,
		log:     log.With("store", store),
		vwcs:    opts.ValidatingWebhookConfigurations,
		mwcs:    opts.MutatingWebhookConfigurations,
		crds:    opts.CustomResourceDefinitions,
		changed: make(chan struct{}),
	}, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// GetCertificate is the tls.Config hook: the serving certificate of the
// Secret (or directory) as last read. It fails until one has been read.
func (c *Certs) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cert == nil {
		return nil, errors.New("no serving certificate yet: its Secret or directory not read")
	}
	return c.cert, nil
}

// CABundle returns the CAs the serving certificates are signed by, in
// PEM, as the caBundle of a webhook wants them, and a channel closed when
// they change. The bundle is nil until the Secret (or directory) has
// been read once.
func (c *Certs) CABundle() ([]byte, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bundle, c.changed
}

// load makes data's serving certificate the one served and its ca.crt the
// bundle. A pair that does not load leaves the previous one served (plan
// replaces it).
func (c *Certs) load(data map[string][]byte) {
	cert, err := tls.X509KeyPair(data[keyCert], data[keyKey])
	bundle := data[keyCABundle]
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.cert = &cert
	}
	if len(bundle) > 0 && string(bundle) != string(c.bundle) {
		c.bundle = bundle
		close(c.changed)
		c.changed = make(chan struct{})
	}
}

// Name is its name in the manager's errors and logs.
func (c *Certs) Name() string { return "webhook certificates" }

// NeedLeaderElection reports false: every replica reads the Secret and
// serves its certificate; any of them may rotate it.
func (c *Certs) NeedLeaderElection() bool { return false }

// Start keeps the certificates and serves them until ctx is done: it
// watches the Secret (or reads the directory), serves what it holds,
// makes it when missing and rotates what it holds when due (see the
// package doc). It returns nil when ctx is done, after its goroutines
// have ended; failures to read or write are logged and retried with
// backoff, from 1s to a minute. Start may be called once: a webhook
// server given the Certs as its Certificates calls it.
func (c *Certs) Start(ctx context.Context) error {
	c.mu.Lock()
	started := c.started
	c.started = true
	c.mu.Unlock()
	if started {
		return errors.New("start webhook certificates: started before")
	}
	if c.dir != "" {
		return c.runDir(ctx)
	}
	return c.runSecret(ctx)
}

// wait waits until ctx is done (and reports false), poke has a value,
// or: after err, the retry's next backoff; without, wake (or an hour when
// sooner, so that a wall clock set forward is noticed: timers follow the
// monotonic clock).
func (c *Certs) wait(ctx context.Context, poke <-chan struct{}, retry *backoff, wake time.Time, err error) bool {
	d := recheck
	switch {
	case err != nil:
		d = retry.next()
		c.log.Error("keep webhook certificates; retrying", "err", err, "after", d)
	case !wake.IsZero():
		*retry = backoff{}
		d = min(time.Until(wake), recheck)
	default:
		*retry = backoff{}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-poke:
	case <-timer.C:
	}
	return true
}

// pokeHandler wakes a loop, through a channel of room one, on every
// change of an informer's objects.
type pokeHandler[O any] chan struct{}

func (p pokeHandler[O]) poke() {
	select {
	case p <- struct{}{}:
	default:
	}
}
func (p pokeHandler[O]) OnAdd(O, bool)           { p.poke() }
func (p pokeHandler[O]) OnUpdate(_, _ O, _ bool) { p.poke() }
func (p pokeHandler[O]) OnDelete(O, bool)        { p.poke() }

// backoff doubles from 1s to a minute.
type backoff struct{ n int }

func (b *backoff) next() time.Duration {
	d := time.Second << min(b.n, 6)
	b.n++
	return min(d, time.Minute)
}
