// SPDX-License-Identifier: Apache-2.0

package openapi

import (
	"net/http/httptest"
	"testing"
)

// TestNegotiateAsKubeAPIServer: the form each Accept gets is what
// kube-apiserver 1.37.2 answered (curl against the shared server):
// q-values order the clauses, equal ones keep the header's order, a q
// of 0 still counts, wildcards give JSON, and the v2 and v3 protobuf
// types are not interchangeable.
func TestNegotiateAsKubeAPIServer(t *testing.T) {
	const (
		pb2At  = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
		pb2Dot = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
		pb3At  = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
		json   = "application/json"
	)
	for _, tc := range []struct {
		path, accept, want string
	}{
		{"/openapi/v2", pb2At, v2Protobuf},
		{"/openapi/v2", pb2Dot, v2Protobuf},
		{"/openapi/v2", json, json},
		{"/openapi/v2", "", json},
		{"/openapi/v2", "*/*", json},
		{"/openapi/v2", "application/*", json},
		{"/openapi/v2", pb2At + ";q=0.5, " + json + ";q=0.9", json},
		{"/openapi/v2", pb2At + ", " + json, v2Protobuf},
		{"/openapi/v2", json + ";q=0.5, " + pb2At, v2Protobuf},
		{"/openapi/v2", pb2At + ";q=0", v2Protobuf},
		{"/openapi/v2", pb2At + ";q=0.9, " + json + ";q=0.9", v2Protobuf},
		{"/openapi/v2", "text/plain", ""},
		{"/openapi/v2", pb3At, ""},
		{"/openapi/v3/api/v1", pb3At, v3Protobuf},
		{"/openapi/v3/api/v1", "application/com.github.proto-openapi.spec.v3.v1.0+protobuf", v3Protobuf},
		{"/openapi/v3/api/v1", json + ";q=0.5, " + pb3At, v3Protobuf},
		{"/openapi/v3/api/v1", json, json},
		{"/openapi/v3/api/v1", "*/*", json},
		{"/openapi/v3/api/v1", pb2At, ""},
		{"/openapi/v3/api/v1", "text/plain", ""},
	} {
		req := httptest.NewRequest("GET", tc.path, nil)
		if tc.accept != "" {
			req.Header.Set("Accept", tc.accept)
		}
		rec := httptest.NewRecorder()
		v2, v3 := NewDoc(obj{"swagger": "2.0"}), NewDoc(obj{"openapi": "3.0.0"})
		Serve(rec, req, req.URL.Path, func() Doc { return v2 }, func() map[string]Doc { return map[string]Doc{"api/v1": v3} })
		got := rec.Header().Get("Content-Type")
		if rec.Code == 406 {
			got = ""
		}
		if got != tc.want {
			t.Errorf("GET %s Accept %q: Content-Type %q (code %d), want %q", tc.path, tc.accept, got, rec.Code, tc.want)
		}
	}
}
