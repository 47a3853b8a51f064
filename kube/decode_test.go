// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"strings"
	"testing"
)

// TestWatchDecodeErrorHidesObject: an object that does not decode is named
// by its event type and the field that failed; its content, which may be
// a Secret's data, is not in the error.
func TestWatchDecodeErrorHidesObject(t *testing.T) {
	w := watcherOn(`{"type":"ADDED","object":{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s"},"data":{"password":"c2VjcmV0"},"immutable":"yes"}}` + "\n")
	ev, err := w.Next()
	if err != nil {
		t.Fatal(err)
	}
	var s Secret
	err = ev.Decode(&s)
	if err == nil || !strings.Contains(err.Error(), "decode ADDED event") || !strings.Contains(err.Error(), "Secret.immutable") {
		t.Errorf("Decode() = %v, want an error naming the event and the field", err)
	}
	if err != nil && strings.Contains(err.Error(), "c2VjcmV0") {
		t.Errorf("Decode() error %q shows the Secret's data", err)
	}
}
