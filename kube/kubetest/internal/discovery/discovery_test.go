// SPDX-License-Identifier: Apache-2.0

package discovery

import (
	"bytes"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
)

// TestDocumentsEndInNewline checks that every discovery document ends as
// the real server's encoder ends it, so that kubectl get --raw prints the
// same bytes.
func TestDocumentsEndInNewline(t *testing.T) {
	docs := map[string][]byte{
		"/api":       APIVersions("127.0.0.1:6443"),
		"/api/v1":    ResourceList("", "v1", Resources(kinds.Builtins()[:2])),
		"/apis":      GroupList([]APIGroup{NewGroup("apps", []string{"v1"})}),
		"/apis/apps": Document(NewGroup("apps", []string{"v1"})),
		"aggregated": Aggregated([]Group{{Name: "apps", Versions: []Version{{Name: "v1"}}}}),
	}
	for name, doc := range docs {
		if !bytes.HasSuffix(doc, []byte("}\n")) || bytes.Count(doc, []byte("\n")) != 1 {
			t.Errorf("%s = %q, want one JSON line ending in a newline", name, doc)
		}
	}
}
