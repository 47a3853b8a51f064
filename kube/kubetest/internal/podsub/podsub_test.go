// SPDX-License-Identifier: Apache-2.0

package podsub

import (
	"strings"
	"testing"
)

// TestChangedEphemeralContainerMessage checks the message of a changed
// ephemeral container against kube-apiserver 1.37.2's answer to a second
// kubectl debug -c debugger of the same pod (its SYS_PTRACE added twice).
func TestChangedEphemeralContainerMessage(t *testing.T) {
	ec := func(add ...any) map[string]any {
		return map[string]any{"name": "debugger", "image": "busybox:1.36", "imagePullPolicy": "IfNotPresent",
			"resources": map[string]any{}, "terminationMessagePath": "/dev/termination-log",
			"terminationMessagePolicy": "File",
			"securityContext":          map[string]any{"capabilities": map[string]any{"add": add}}}
	}
	old := map[string]any{"spec": map[string]any{"ephemeralContainers": []any{ec("SYS_PTRACE")}}}
	next := map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "app"}},
		"ephemeralContainers": []any{ec("SYS_PTRACE", "SYS_PTRACE")}}}
	errs := ValidateEphemeral(next, old)
	want := strings.Join([]string{
		`existing ephemeral containers "debugger" may not be changed`,
		`@@ -27,6 +27,7 @@`,
		`  "SecurityContext": {`,
		`   "Capabilities": {`,
		`    "Add": [`,
		`+    "SYS_PTRACE",`,
		`     "SYS_PTRACE"`,
		`    ],`,
		`    "Drop": null`, ``}, "\n")
	if len(errs) != 1 || errs[0].Field != "spec.ephemeralContainers" || errs[0].Detail != want {
		t.Fatalf("errors = %+v, want one of spec.ephemeralContainers with detail\n%s", errs, want)
	}
}

// TestUnifiedDiffHunks checks hunks apart and together, and the ranges
// of one line and of none, as difflib writes them.
func TestUnifiedDiffHunks(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12"
	b := "1\nX\n3\n4\n5\n6\n7\n8\n9\n10\n11"
	want := "@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n@@ -9,4 +9,3 @@\n 9\n 10\n 11\n-12\n"
	if got := unifiedDiff(a, b); got != want {
		t.Errorf("diff =\n%s\nwant\n%s", got, want)
	}
	if got := unifiedDiff("a", "a"); got != "" {
		t.Errorf("diff of equal texts = %q, want none", got)
	}
	if got, want := unifiedDiff("a", "b"), "@@ -1 +1 @@\n-a\n+b\n"; got != want {
		t.Errorf("diff of one line = %q, want %q", got, want)
	}
}
