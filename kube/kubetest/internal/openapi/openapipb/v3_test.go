// SPDX-License-Identifier: Apache-2.0

package openapipb

import (
	"bytes"
	"os"
	"testing"
)

// TestV3MatchesGnostic encodes testdata/v3.json, a small OpenAPI 3.0
// document that uses every message of openapi_v3.Document (references in
// every place one may stand, defaults of every JSON type, callbacks,
// links, security schemes with every flow), and compares with
// testdata/v3.pb: gnostic-models v0.7.0's openapi_v3.ParseDocument and
// proto.Marshal of the same file, which is how kube-apiserver encodes
// its /openapi/v3 documents.
func TestV3MatchesGnostic(t *testing.T) {
	data, err := os.ReadFile("testdata/v3.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/v3.pb")
	if err != nil {
		t.Fatal(err)
	}
	got, problems, err := V3(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("problems: %q", problems)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("encoding differs from gnostic's at byte %d (got %d bytes, want %d)", firstDiff(got, want), len(got), len(want))
	}
}
