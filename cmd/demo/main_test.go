// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"strings"
	"testing"
)

// The demo reaches every state it expects and exits 0, in real time (the
// manager serves metrics on a loopback socket, which a synctest bubble
// cannot wait on).
func TestDemo(t *testing.T) {
	var out, logs bytes.Buffer
	if code := run(t.Context(), nil, &out, &logs); code != exitOK {
		t.Fatalf("run() = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitOK, &out, &logs)
	}
	for _, line := range []string{
		"the mirror won the leader election",
		"created copy of secret default/db-password in team-a",
		"created copy of secret default/db-password in team-b",
		"updated copy of secret default/db-password in team-b",
		"created copy of secret default/db-password in team-c",
		"deleted copy of secret default/db-password in team-c",
		"secret default/db-password is gone",
		`controller_runtime_reconcile_total{controller="mirror-secret",result="success"}`,
		"demo done",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("demo output lacks %q:\n%s", line, &out)
		}
	}
	if strings.Contains(out.String(), "copy of secret default/db-password in staging") {
		t.Errorf("demo copied into staging, which nothing selects:\n%s", &out)
	}
	if logs.Len() > 0 {
		t.Errorf("demo logged at the default level (warn):\n%s", &logs)
	}
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string // in stderr
	}{
		{"help", []string{"-h"}, exitOK, "-log-level"},
		{"unknown flag", []string{"--kubeconfig", "/k"}, exitConfig, "flag provided but not defined: -kubeconfig"},
		{"log level", []string{"--log-level", "loud"}, exitConfig, `--log-level "loud"`},
		{"log format", []string{"--log-format", "xml"}, exitConfig, `--log-format "xml"`},
		{"arguments", []string{"extra"}, exitConfig, "unexpected arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(t.Context(), tc.args, &out, &errOut)
			if code != tc.code || !strings.Contains(errOut.String(), tc.msg) {
				t.Errorf("run(%q) = %d, stderr:\n%s\nwant %d and %q", tc.args, code, &errOut, tc.code, tc.msg)
			}
		})
	}
}
