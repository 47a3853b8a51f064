// SPDX-License-Identifier: Apache-2.0

package certs

import (
	"maps"
	"testing"
	"time"
)

func testPolicy() policy {
	return policy{caName: "test-ca", dnsNames: []string{"webhook.ns.svc"},
		caValidity: 30 * time.Hour, caRenewBefore: 10 * time.Hour,
		validity: 9 * time.Hour, renewBefore: 3 * time.Hour, overlap: time.Hour}
}

// TestPlan: what plan decides from the Secret's data and the time.
func TestPlan(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	pol := testPolicy()
	fresh, _, _, err := plan(t0, nil, pol)
	if err != nil {
		t.Fatal(err)
	}
	first := parseData(fresh)
	if len(first.cas) != 1 || first.caKey == nil || first.cert == nil || !signedBy(first.cert, first.cas[0]) {
		t.Fatalf("plan(no Secret) = %d CAs, CA key %v, certificate %v; want one CA and a certificate it signed", len(first.cas), first.caKey != nil, first.cert != nil)
	}
	later := t0.Add(2 * time.Hour) // settled: nothing to do

	for _, tc := range []struct {
		name string
		now  time.Time
		edit func(map[string][]byte)
		// want: which pieces change ("" for none), and the CAs after
		wantCA, wantCert bool
		wantCAs          int
		wantWake         time.Time
	}{
		{name: "settled", now: later, edit: func(map[string][]byte) {}, wantCAs: 1,
			wantWake: first.cert.NotAfter.Add(-pol.renewBefore)},
		{name: "serving key lost: replaced at once", now: later, edit: func(d map[string][]byte) { d[keyKey] = nil },
			wantCert: true, wantCAs: 1},
		{name: "serving due: replaced by the same CA", now: t0.Add(6 * time.Hour), edit: func(map[string][]byte) {},
			wantCert: true, wantCAs: 1},
		{name: "names changed: replaced at once by the trusted CA", now: later,
			edit: func(d map[string][]byte) {
				other := pol
				other.dnsNames = []string{"old.ns.svc"}
				out, _, _, _ := plan(t0, nil, other)
				maps.Copy(d, out)
			}, wantCert: true, wantCAs: 1},
		{name: "CA key lost: a new CA, trusted before it signs", now: later,
			edit:   func(d map[string][]byte) { d[keyCAKey] = nil },
			wantCA: true, wantCAs: 2, wantWake: later.Add(pol.overlap)},
		{name: "CA due: a new CA, trusted before it signs", now: t0.Add(20 * time.Hour),
			edit: func(d map[string][]byte) {
				// A serving certificate made at 18h, not due until 24h.
				p := parseData(d)
				cert, key, _ := newServing(p.cas[0], p.caKey, pol.dnsNames, nil, t0.Add(18*time.Hour), pol.validity)
				d[keyCert] = certPEM(cert)
				d[keyKey], _ = keyPEM(key)
			},
			wantCA: true, wantCAs: 2, wantWake: t0.Add(21 * time.Hour)},
		{name: "expired: replaced at once", now: t0.Add(31 * time.Hour), edit: func(map[string][]byte) {},
			wantCA: true, wantCert: true, wantCAs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := maps.Clone(fresh)
			tc.edit(data)
			before := parseData(data)
			out, what, wake, err := plan(tc.now, data, pol)
			if err != nil {
				t.Fatal(err)
			}
			if out == nil {
				out = data
			}
			after := parseData(out)
			gotCA := before.caKey == nil || !after.cas[0].Equal(before.cas[0])
			gotCert := before.cert == nil || !after.cert.Equal(before.cert)
			if gotCA != tc.wantCA || gotCert != tc.wantCert || len(after.cas) != tc.wantCAs {
				t.Errorf("plan() = %q: new CA %v, new certificate %v, %d CAs; want %v, %v, %d", what, gotCA, gotCert, len(after.cas), tc.wantCA, tc.wantCert, tc.wantCAs)
			}
			if !tc.wantWake.IsZero() && !wake.Equal(tc.wantWake) {
				t.Errorf("plan() wakes at %v, want %v", wake, tc.wantWake)
			}
			if after.cert == nil || !signedBy(after.cert, after.cas[0]) && !signedBy(after.cert, after.cas[len(after.cas)-1]) {
				t.Errorf("plan() serves a certificate signed by no CA of its bundle")
			}
			if again, what, _, _ := plan(tc.now, out, pol); again != nil {
				t.Errorf("plan() again at the same time = %q, want nothing", what)
			}
		})
	}
}
