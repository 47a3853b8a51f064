// SPDX-License-Identifier: Apache-2.0

package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// jsonRoundTrip turns Go literals into what decoded JSON holds.
func jsonRoundTrip(t *testing.T, v any) obj {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var o obj
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestApplyTypeErrorsAllListed: every type error of an applied object is
// listed, with the paths and words of the real server's apply.
func TestApplyTypeErrorsAllListed(t *testing.T) {
	s := Builtin("apps", "v1", "Deployment")
	errs := ApplyTypeErrors(s, jsonRoundTrip(t, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"spec": map[string]any{"paused": 1.5, "replicas": true,
			"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "a", "image": 5}}}}}}), "", true)
	want := []string{".spec.paused: expected boolean, got &{1.5}", ".spec.replicas: expected numeric (int or float), got bool",
		`.spec.template.spec.containers[name="a"].image: expected string, got &value.valueUnstructured{Value:5}`}
	if strings.Join(errs, "\n") != strings.Join(want, "\n") {
		t.Errorf("ApplyTypeErrors = %q, want %q", errs, want)
	}
}
