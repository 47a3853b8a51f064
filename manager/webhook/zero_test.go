// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/zerotest"
	"github.com/kubeloop/kubeloop/kube"
)

// TestZeroValues: every exported type's zero value works or returns an
// error, and a typed nil is treated as nil (see internal/zerotest).
func TestZeroValues(t *testing.T) {
	zerotest.Walk(t, ".", zerotest.Types{
		Values: []any{
			new(AdmissionHandler), new(Conversion), new(DefaulterFunc[kube.ConfigMap]), new(Server), new(ValidatorFuncs[kube.ConfigMap]),
		},
		Except: map[string]string{
			"Server.Register": "an invalid path (the walk's \"\") or a nil handler panics, as http.ServeMux.Handle does; Register has no error to return",
		},
		TypedNils: []any{(*kube.ConfigMap)(nil)},
	})
}

// TestZeroServer: a Server that New did not make routes what is
// registered on it but refuses to listen, naming New; a nil one answers
// 500.
func TestZeroServer(t *testing.T) {
	var s Server
	s.Register("/ok", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/ok", http.NoBody))
	if rec.Code != http.StatusNoContent {
		t.Errorf("zero Server routed /ok to %d, want 204", rec.Code)
	}
	if err := s.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "use webhook.New") {
		t.Errorf("zero Server Start = %v, want an error naming webhook.New", err)
	}
	rec = httptest.NewRecorder()
	(*Server)(nil).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/ok", http.NoBody))
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("nil Server answered %d, want 500", rec.Code)
	}
}
