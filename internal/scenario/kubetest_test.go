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

// TestKubetest runs the wire scenarios against the in-process fake; the
// integration suite runs the same against a real kube-apiserver. The
// scenarios that wait on real time run in a synctest bubble on a server
// of their own (Env.Bubble).
func TestKubetest(t *testing.T) {
	env := kubetestEnv(t)
	env.Bubble = func(t *testing.T, f func(t *testing.T, env scenario.Env)) {
		synctest.Test(t, func(t *testing.T) { f(t, kubetestEnv(t)) })
	}
	scenario.Run(t, env)
}

// kubetestMinor is the minor kubetest acts as for the scenarios: 1.36,
// the shared harness server's, whose answers the scenarios expect until
// they choose their expectations by the server's minor; kubetest's
// default is the newest (1.37).
const kubetestMinor = 36

// kubetestEnv returns the Env of a new kubetest server, with the users of
// the harness's token file; the server closes when t ends.
func kubetestEnv(t *testing.T) scenario.Env {
	srv := kubetest.New(kubetest.Options{Tokens: map[string]string{"admin-token": "admin", "denied-token": "denied"},
		UIDs: map[string]string{"admin": "1", "denied": "2"}, Minor: kubetestMinor}) // as the harness's token file
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
