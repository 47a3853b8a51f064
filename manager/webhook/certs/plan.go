// SPDX-License-Identifier: Apache-2.0

package certs

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"fmt"
	"net"
	"slices"
	"time"
)

// The keys of the Secret. tls.crt and tls.key are those of a
// kubernetes.io/tls Secret, so that it can also be mounted as files.
const (
	keyCABundle = "ca.crt" // the CAs trusted, newest first: the caBundle
	keyCAKey    = "ca.key" // the key of the newest CA, which signs
	keyCert     = "tls.crt"
	keyKey      = "tls.key"
)

// policy is what [plan] decides by: the names and the durations of
// Options, with defaults filled.
type policy struct {
	caName        string
	dnsNames      []string
	ips           []net.IP
	caValidity    time.Duration
	caRenewBefore time.Duration
	validity      time.Duration
	renewBefore   time.Duration
	overlap       time.Duration
}

// pair is a parsed state of the Secret's data: the pieces that parse;
// what does not is nil.
type pair struct {
	cas     []*x509.Certificate // trusted, newest first
	caKey   crypto.Signer       // key of cas[0], nil if it does not match
	cert    *x509.Certificate   // serving certificate, nil if unusable
	certKey crypto.Signer
}

func parseData(data map[string][]byte) pair {
	var p pair
	if cas, err := parseCerts(data[keyCABundle]); err == nil {
		p.cas = cas
	}
	if len(p.cas) > 0 {
		if k, err := parseKey(data[keyCAKey]); err == nil && matches(p.cas[0], k) {
			p.caKey = k
		}
	}
	if certs, err := parseCerts(data[keyCert]); err == nil {
		if k, err := parseKey(data[keyKey]); err == nil && matches(certs[0], k) {
			p.cert, p.certKey = certs[0], k
		}
	}
	return p
}

// plan decides what the Secret's data should be at now, and when to look
// again. It returns the new data and a description of the change for the
// log, or nil data when the Secret is right as it is. In order:
//
//  1. A new CA when there is none that can sign (no CA, or no key that
//     matches the newest), or when the newest is within caRenewBefore of
//     its expiry. It is added to the bundle, before the CAs already there.
//  2. A new serving certificate, signed by the newest CA, when the
//     current one is unusable (missing, expired, its key not matching, or
//     signed by no CA of the bundle): at once, since nothing good is
//     served. When it is only due (within renewBefore of its expiry), for
//     other names, or signed by an older CA than the newest: once the
//     newest CA has been in the bundle for overlap, so that the API
//     server trusts the new certificate before any replica serves it.
//  3. The bundle keeps the newest CA, the one that signed the serving
//     certificate, and, until the serving certificate has been in the
//     Secret for overlap, every other CA (a replica may still serve the
//     previous certificate); expired CAs go.
//
// The time to look again is the earliest of the times at which one of
// these steps would change something.
func plan(now time.Time, data map[string][]byte, pol policy) (map[string][]byte, string, time.Time, error) {
	p := parseData(data)
	var what []string
	var wake []time.Time
	caKeyPEM := data[keyCAKey]

	// 1. The signing CA.
	if p.caKey == nil || !now.Before(p.cas[0].NotAfter.Add(-pol.caRenewBefore)) {
		ca, key, err := newCA(pol.caName, now, pol.caValidity)
		if err != nil {
			return nil, "", time.Time{}, err
		}
		if caKeyPEM, err = keyPEM(key); err != nil {
			return nil, "", time.Time{}, err
		}
		p.cas, p.caKey = append([]*x509.Certificate{ca}, p.cas...), key
		what = append(what, "new CA")
	}
	signer := p.cas[0]
	wake = append(wake, signer.NotAfter.Add(-pol.caRenewBefore))

	// 2. The serving certificate.
	usable := p.cert != nil && now.Before(p.cert.NotAfter) && slices.ContainsFunc(p.cas, func(ca *x509.Certificate) bool {
		return now.Before(ca.NotAfter) && signedBy(p.cert, ca)
	})
	due := !usable || !now.Before(p.cert.NotAfter.Add(-pol.renewBefore)) ||
		!sameNames(p.cert, pol.dnsNames, pol.ips) || !signedBy(p.cert, signer)
	certPEMOut, keyPEMOut := data[keyCert], data[keyKey]
	trusted := made(signer).Add(pol.overlap)
	switch {
	case due && (!usable || !now.Before(trusted)):
		cert, key, err := newServing(signer, p.caKey, pol.dnsNames, pol.ips, now, pol.validity)
		if err != nil {
			return nil, "", time.Time{}, err
		}
		if keyPEMOut, err = keyPEM(key); err != nil {
			return nil, "", time.Time{}, err
		}
		certPEMOut = certPEM(cert)
		p.cert = cert
		what = append(what, "new serving certificate")
	case due:
		wake = append(wake, trusted)
	}
	wake = append(wake, p.cert.NotAfter.Add(-pol.renewBefore))

	// 3. The bundle.
	settled := !now.Before(made(p.cert).Add(pol.overlap))
	if !settled {
		wake = append(wake, made(p.cert).Add(pol.overlap))
	}
	var keep []*x509.Certificate
	for i, ca := range p.cas {
		switch {
		case !now.Before(ca.NotAfter):
		case i == 0 || !settled || signedBy(p.cert, ca):
			keep = append(keep, ca)
			wake = append(wake, ca.NotAfter)
		}
	}
	bundle := certPEM(keep...)
	if !bytes.Equal(bundle, data[keyCABundle]) && len(what) == 0 {
		what = append(what, fmt.Sprintf("bundle of %d CAs", len(keep)))
	}

	// Times already past were acted on above or are waited for by a later
	// one (a due certificate waits for its CA to be trusted).
	var next time.Time
	for _, t := range wake {
		if t.After(now) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	out := map[string][]byte{keyCABundle: bundle, keyCAKey: caKeyPEM, keyCert: certPEMOut, keyKey: keyPEMOut}
	if sameData(out, data) {
		return nil, "", next, nil
	}
	return out, joinWhat(what), next, nil
}

func sameData(a, b map[string][]byte) bool {
	for _, k := range []string{keyCABundle, keyCAKey, keyCert, keyKey} {
		if !bytes.Equal(a[k], b[k]) {
			return false
		}
	}
	return true
}

func joinWhat(what []string) string {
	switch len(what) {
	case 0:
		return "repaired"
	case 1:
		return what[0]
	}
	return what[0] + " and " + what[1]
}
