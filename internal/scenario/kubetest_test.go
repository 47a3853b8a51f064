// SPDX-License-Identifier: Apache-2.0

package scenario_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/internal/scenario"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestKubetest runs the wire scenarios against the in-process fake, as
// the newest minor (its default); the integration suite runs the same
// against a real kube-apiserver. The scenarios that wait on real time run
// in a synctest bubble on a server of their own (Env.Bubble).
func TestKubetest(t *testing.T) {
	t.Parallel()
	scenario.Run(t, bubbled(kubetestEnv(t, 0), 0))
}

// TestKubetestOldest runs the scenarios whose expectations differ by
// minor against the fake acting as the oldest minor kubeloop supports
// (Options.Minor 33), so that what they expect of 1.33 (the answers the
// real 1.33.13 gives) is checked against it too. Only those: every
// scenario twice doubled the package's CPU under -race (TestKubetest
// fails a scenario that chooses by minor without being in the list).
func TestKubetestOldest(t *testing.T) {
	t.Parallel()
	scenario.RunByMinor(t, bubbled(kubetestEnv(t, kubetest.OldestMinor), kubetest.OldestMinor))
}

// bubbled returns env with a Bubble that makes a server acting as minor.
func bubbled(env scenario.Env, minor int) scenario.Env {
	env.Bubble = func(t *testing.T, f func(t *testing.T, env scenario.Env)) {
		synctest.Test(t, func(t *testing.T) { f(t, kubetestEnv(t, minor)) })
	}
	return env
}

// kubetestEnv returns the Env of a new kubetest server acting as minor
// (zero: the newest), with the users of the harness's token file and the
// feature gates the harness turns on for that minor (WatchList on 1.33);
// the server closes when t ends.
func kubetestEnv(t *testing.T, minor int) scenario.Env {
	var gates map[string]bool
	if minor == kubetest.OldestMinor {
		gates = map[string]bool{"WatchList": true}
	}
	srv := kubetest.New(kubetest.Options{Tokens: map[string]string{"admin-token": "admin", "denied-token": "denied"},
		UIDs: map[string]string{"admin": "1", "denied": "2"}, Minor: minor, FeatureGates: gates}) // as the harness's token file
	t.Cleanup(srv.Close)
	srv.Deny("denied", "*", "*")
	admin := srv.ConfigFor("admin")
	return scenario.Env{
		Config:       admin,
		DeniedConfig: srv.ConfigFor("denied"),
		Compact: func(ctx context.Context, t *testing.T, c *kube.Client, rv string) {
			srv.Compact()
		},
		LagWatches: func(least, most time.Duration) (*kube.Config, func()) {
			return admin, srv.LagWatches("", least, most)
		},
		Controllers:        true,
		ControllersSettled: true,
	}
}
