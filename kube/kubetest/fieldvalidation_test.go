// SPDX-License-Identifier: Apache-2.0

package kubetest

import "testing"

// TestStrategicDirectivesAreNotUnknownFields: kubectl edit sends
// strategic merge patches with directives ($setElementOrder/containers)
// and fieldValidation=Strict; the directives are the merge's, not fields.
func TestStrategicDirectivesAreNotUnknownFields(t *testing.T) {
	_, c := newTestServer(t, Options{})
	deploy := "/apis/apps/v1/namespaces/default/deployments"
	must(t, c, 201, "POST", deploy, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
"spec":{"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"a"}]}}}}`)
	r := must(t, c, 200, "PATCH", deploy+"/d?fieldValidation=Strict",
		`{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"c"}],"containers":[{"image":"b","name":"c"}]}}}}`,
		"Content-Type", ctSMP)
	if field(r.json(t), "spec.template.spec.$setElementOrder/containers") != nil {
		t.Errorf("the directive was stored: %s", r.body)
	}
}
