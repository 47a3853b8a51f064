// SPDX-License-Identifier: Apache-2.0

package authz

import "testing"

func TestDenials(t *testing.T) {
	var d Denials // the zero value denies nothing
	if d.Denies("alice", "get", "pods") {
		t.Fatal("zero Denials denies alice get pods")
	}
	d.Deny("alice", "*", "pods")
	d.Deny("*", "delete", "/metrics")
	tests := []struct {
		user, verb, resource string
		want                 bool
	}{
		{"alice", "get", "pods", true},
		{"alice", "get", "configmaps", false},
		{"bob", "get", "pods", false},
		{"bob", "delete", "/metrics", true},
	}
	for _, tt := range tests {
		if got := d.Denies(tt.user, tt.verb, tt.resource); got != tt.want {
			t.Errorf("Denies(%q, %q, %q) = %v, want %v", tt.user, tt.verb, tt.resource, got, tt.want)
		}
	}
	d.Deny("*", "*", "*")
	if !d.DeniesPath("carol", nil, "get", "/version") {
		t.Error("DeniesPath(carol, no groups, get, /version) = false, want true")
	}
	if d.DeniesPath("carol", []any{"system:authenticated"}, "get", "/version") {
		t.Error("DeniesPath(carol, system:authenticated, get, /version) = true, want false")
	}
	if some, all := d.DeniedTo("carol"); !some || !all {
		t.Errorf("DeniedTo(carol) = %v, %v, want true, true", some, all)
	}
	d.Allow("*", "*", "*")
	if some, all := d.DeniedTo("carol"); !some || all { // * delete /metrics is left
		t.Errorf("after Allow, DeniedTo(carol) = %v, %v, want true, false", some, all)
	}
}
