// SPDX-License-Identifier: Apache-2.0

package watchenc

import (
	"bytes"
	"net/http/httptest"
	"testing"
)

func TestLines(t *testing.T) {
	var buf bytes.Buffer
	Event(&buf, "ADDED", []byte(`{"kind":"ConfigMap"}`))
	Bookmark(&buf, "ConfigMap", "v1", 7, false)
	Bookmark(&buf, "ConfigMap", "v1", 8, true)
	Expired(&buf, MsgTooOld)
	want := `{"type":"ADDED","object":{"kind":"ConfigMap"}}
{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"7"}}}
{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"8","annotations":{"k8s.io/initial-events-end":"true"}}}}
{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The resourceVersion for the provided watch is too old.","reason":"Expired","code":410}}
`
	if got := buf.String(); got != want {
		t.Fatalf("lines:\n%s\nwant:\n%s", got, want)
	}
}

func TestStartSends(t *testing.T) {
	rec := httptest.NewRecorder()
	var buf bytes.Buffer
	send := Start(rec, &buf)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Cache-Control") != "no-cache, private" {
		t.Fatalf("start = %d %v", rec.Code, rec.Header())
	}
	if !send() || rec.Body.Len() != 0 || !rec.Flushed {
		t.Fatalf("an empty send wrote %q (flushed %v)", rec.Body.String(), rec.Flushed)
	}
	Event(&buf, "DELETED", []byte(`{}`))
	if !send() || rec.Body.String() != `{"type":"DELETED","object":{}}`+"\n" || buf.Len() != 0 {
		t.Fatalf("send wrote %q, left %q", rec.Body.String(), buf.String())
	}
}
