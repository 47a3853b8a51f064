// SPDX-License-Identifier: Apache-2.0

package openapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestInstantiateRenames: the document of a CRD names its group, version,
// kind and plural, never the capture CRD's.
func TestInstantiateRenames(t *testing.T) {
	doc := CRDV3([]CRDKind{{Names: CRDNames{Group: "stable.example.com", Version: "v1beta1", Kind: "Apple",
		ListKind: "AppleList", Plural: "apples"}, Scope: "Namespaced", Status: false}})
	raw, _ := json.Marshal(doc)
	s := string(raw)
	for _, capture := range []string{"qq", "Zzkind", "zzplurals", "Qq"} {
		if strings.Contains(s, capture) {
			t.Errorf("document still names the capture CRD (%q)", capture)
		}
	}
	for _, want := range []string{`"/apis/stable.example.com/v1beta1/namespaces/{namespace}/apples/{name}"`,
		`"operationId":"createStableExampleComV1beta1NamespacedApple"`, `"create an Apple"`,
		`"com.example.stable.v1beta1.AppleList"`, `"stableExampleCom_v1beta1"`} {
		if !strings.Contains(s, want) {
			t.Errorf("document lacks %s", want)
		}
	}
	if strings.Contains(s, "/status") {
		t.Errorf("document has status paths for a version without the status subresource")
	}
}
