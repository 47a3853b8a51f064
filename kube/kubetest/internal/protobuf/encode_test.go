// SPDX-License-Identifier: Apache-2.0

package protobuf

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// TestEncodeRoundTrip checks that what EncodeObject writes DecodeObject
// reads back as the same JSON, for objects holding every wire form: maps
// of bytes and quantities, times, int-or-strings, inlined structs,
// negative and 64-bit integers, named lists (ExtraValue), raw JSON, and
// the alternative forms of a CRD's schema (additionalProperties as a
// schema or a bool, items as a schema or a list, dependencies as a schema
// or a list of names).
func TestEncodeRoundTrip(t *testing.T) {
	for _, js := range []string{
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"d","labels":{"a":"b"},"creationTimestamp":"2026-01-02T03:04:05Z","managedFields":[{"manager":"m","operation":"Apply","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}},"time":"2026-01-02T03:04:05Z"}]},"data":{"k":"aGVsbG8="},"type":"Opaque"}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","generation":9007199254740993},"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"500m","memory":"1Gi"}},"readinessProbe":{"httpGet":{"port":"http","path":"/"}}}],"volumes":[{"name":"v","emptyDir":{}},{"name":"w","configMap":{"name":"cm","defaultMode":420}}],"securityContext":{"runAsUser":-1}},"status":{"phase":"Pending"}}`,
		`{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"c"},"spec":{"request":"AAEC","signerName":"x/y","usages":["digital signature"],"extra":{"k":["a","b"]}}}`,
		`{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"r"},"revision":3,"data":{"spec":{"x":1}}}`,
		`{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"7","continue":"c"},"items":[{"metadata":{"name":"a"},"data":{"x":"y"}}]}`,
		`{"apiVersion":"v1","kind":"Status","metadata":{},"status":"Failure","message":"m","reason":"NotFound","details":{"name":"n","kind":"pods","retryAfterSeconds":3},"code":404}`,
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"ws.example.com"},"spec":{"group":"example.com","names":{"plural":"ws","kind":"W"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"m":{"type":"object","additionalProperties":{"type":"string"}},"n":{"type":"object","additionalProperties":false},"l":{"type":"array","items":{"type":"integer"}},"t":{"type":"array","items":[{"type":"string"},{"type":"integer"}]},"d":{"dependencies":{"a":["b","c"],"e":{"required":["f"]}}},"e":{"type":"string","enum":["x",1,null],"default":{"k":[1,2]}}}}}}]}}`,
		`{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.example.com"},"spec":{"group":"example.com","version":"v1","groupPriorityMinimum":1000,"versionPriority":15,"service":{"namespace":"d","name":"s","port":443},"caBundle":"AAEC"}}`,
		`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"holderIdentity":"h","leaseDurationSeconds":15,"renewTime":"2026-01-02T03:04:05.123456Z"}}`,
	} {
		var v any
		if err := unstructured.DecodeExact([]byte(js), &v); err != nil {
			t.Fatal(err)
		}
		body, ok, err := EncodeObject(v.(obj))
		if !ok || err != nil {
			t.Fatalf("encode %s: ok=%v %v", js, ok, err)
		}
		got, _, err := DecodeObject(body)
		if err != nil {
			t.Fatalf("decode %s: %v", js, err)
		}
		if !reflect.DeepEqual(got, v) {
			g, _ := json.Marshal(got)
			t.Errorf("round trip\n got: %s\nwant: %s", g, js)
		}
	}
}

// TestEncodeUnknownKind checks a kind without a protobuf form is left to
// JSON.
func TestEncodeUnknownKind(t *testing.T) {
	if _, ok, _ := EncodeObject(obj{"apiVersion": "example.com/v1", "kind": "Widget"}); ok {
		t.Error("a custom resource encodes to protobuf")
	}
}
