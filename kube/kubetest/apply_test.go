// SPDX-License-Identifier: Apache-2.0

package kubetest

import "testing"

import "github.com/kubeloop/kubeloop/kube/kubetest/internal/fieldmanager"

// TestApplyConflictMessage checks the conflict error of an apply: the
// real server's message, managers in order, and one cause per field.
func TestApplyConflictMessage(t *testing.T) {
	a := &fieldmanager.Entry{Manager: "a", Operation: "Apply", APIVersion: "v1"}
	b := &fieldmanager.Entry{Manager: "b", Operation: "Update", APIVersion: "v1", Subresource: "status"}
	one := errApplyConflict([]fieldmanager.Conflict{{Manager: b, Path: []string{"f:status", "f:conditions", `k:{"type":"Ready"}`, "f:status"}}})
	if want := `Apply failed with 1 conflict: conflict with "b" with subresource "status" using v1: .status.conditions[type="Ready"].status`; one.Status.Message != want {
		t.Errorf("one conflict: %q, want %q", one.Status.Message, want)
	}
	two := errApplyConflict([]fieldmanager.Conflict{{Manager: b, Path: []string{"f:x"}}, {Manager: a, Path: []string{"f:y"}}, {Manager: a, Path: []string{"f:z"}}})
	want := "Apply failed with 3 conflicts: conflicts with \"a\":\n- .y\n- .z\nconflicts with \"b\" with subresource \"status\" using v1:\n- .x"
	if two.Status.Message != want {
		t.Errorf("three conflicts: %q, want %q", two.Status.Message, want)
	}
	if len(two.Status.Details.Causes) != 3 || two.Status.Details.Causes[0].Field != ".y" || two.Status.Details.Causes[2].Message != `conflict with "b" with subresource "status" using v1` {
		t.Errorf("causes = %+v", two.Status.Details.Causes)
	}
}
