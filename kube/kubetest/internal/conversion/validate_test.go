// SPDX-License-Identifier: Apache-2.0

package conversion

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestValidate checks the errors of spec.conversion against those
// kube-apiserver 1.37.2 answered to the same CRDs (kubectl create
// --dry-run=server; 1.33.13 words a list value in Go syntax instead).
func TestValidate(t *testing.T) {
	for _, tc := range []struct{ conversion, want string }{
		{`{"strategy":"None"}`, ""},
		{`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://x.example/c"}}}`, ""},
		{`{"strategy":"Webhook"}`, "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook|" +
			"spec.conversion.conversionReviewVersions: Required value"},
		{`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"]}}`, "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook"},
		{`{"strategy":"Webhook","webhook":{"clientConfig":{"url":"https://x.example/c"}}}`, "spec.conversion.conversionReviewVersions: Required value"},
		{`{"strategy":"None","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://x.example/c"}}}`,
			"spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook|" +
				"spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook"},
		{`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v3"],"clientConfig":{"url":"http://x.example/c"}}}`,
			`spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]|` +
				`spec.conversion.conversionReviewVersions: Invalid value: ["v3"]: must include at least one of v1, v1beta1`},
		{`{"strategy":"Other"}`, `spec.conversion.strategy: Unsupported value: "Other": supported values: "None", "Webhook"`},
		{`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://x.example/c","service":{"namespace":"a","name":"b"}}}}`,
			"spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required"},
		{`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{}}}`,
			"spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required"},
		{`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1","v1"],"clientConfig":{"service":{"name":"b","namespace":"n"}}}}`,
			`spec.conversion.conversionReviewVersions[1]: Invalid value: "v1": duplicate version`},
		{`{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://x.example/c?q=1"}}}`,
			`spec.conversion.webhookClientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL`},
	} {
		var conv map[string]any
		if err := json.Unmarshal([]byte(tc.conversion), &conv); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range Validate(obj{"spec": obj{"conversion": conv}}) {
			got = append(got, e.Field+": "+e.Body())
		}
		if strings.Join(got, "|") != tc.want {
			t.Errorf("Validate(%s) = %q, want %q", tc.conversion, strings.Join(got, "|"), tc.want)
		}
	}
}
