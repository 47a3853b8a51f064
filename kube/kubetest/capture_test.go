// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCaptureSequence replays the requests of shared/wire 06 to 22 in the
// order they were captured from kube-apiserver 1.36 and compares every
// answer with the captured one: codes, content types and bodies, with
// uids, resourceVersions, timestamps and continue tokens masked.
func TestCaptureSequence(t *testing.T) {
	s, c := newTestServer(t, Options{})
	for i := 1; i <= 5; i++ {
		n := string(rune('0' + i))
		c.mustDo(201, "POST", "/api/v1/namespaces/default/configmaps",
			`{"metadata":{"name":"cm`+n+`","labels":{"app":"demo","idx":"`+n+`"}},"data":{"k":"v`+n+`"}}`)
	}
	steps := []struct {
		file, method, path, body string
		headers                  []string
	}{
		{"06-create-configmap.txt", "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"created","generateName":""},"data":{"a":"b"}}`, nil},
		{"07-create-conflict-exists.txt", "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"created"},"data":{"a":"b"}}`, nil},
		{"08-get-notfound.txt", "GET", "/api/v1/namespaces/default/configmaps/nope", "", nil},
		{"09-list-paged.txt", "GET", "/api/v1/namespaces/default/configmaps?limit=2", "", nil},
		{"10-list-paged-continue.txt", "GET", "/api/v1/namespaces/default/configmaps?limit=2&continue=", "", nil},
		{"11-list-labelselector.txt", "GET", "/api/v1/namespaces/default/configmaps?labelSelector=app%3Ddemo%2Cidx+in+(1%2C2)", "", nil},
		{"12-list-fieldselector.txt", "GET", "/api/v1/configmaps?fieldSelector=metadata.name%3Dcm3", "", nil},
		{"13-update-stale-rv.txt", "PUT", "/api/v1/namespaces/default/configmaps/cm1", `{"metadata":{"name":"cm1","resourceVersion":"1"},"data":{"k":"x"}}`, nil},
		{"14-invalid-name.txt", "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"Bad_Name"},"data":{}}`, nil},
		{"15-merge-patch.txt", "PATCH", "/api/v1/namespaces/default/configmaps/cm2", `{"data":{"k":"patched","new":"1"},"metadata":{"labels":{"idx":null}}}`,
			[]string{"Content-Type", "application/merge-patch+json"}},
		{"16-json-patch.txt", "PATCH", "/api/v1/namespaces/default/configmaps/cm2", `[{"op":"replace","path":"/data/k","value":"jp"}]`,
			[]string{"Content-Type", "application/json-patch+json"}},
		{"17-json-patch-test-fails.txt", "PATCH", "/api/v1/namespaces/default/configmaps/cm2", `[{"op":"test","path":"/data/k","value":"nope"}]`,
			[]string{"Content-Type", "application/json-patch+json"}},
		{"18-server-side-apply.txt", "PATCH", "/api/v1/namespaces/default/configmaps/applied?fieldManager=demo&force=true", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied"},"data":{"x":"1"}}`,
			[]string{"Content-Type", "application/apply-patch+yaml"}},
		{"19-partial-object-metadata-list.txt", "GET", "/api/v1/namespaces/default/configmaps?limit=2", "",
			[]string{"Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"}},
		{"20-delete.txt", "DELETE", "/api/v1/namespaces/default/configmaps/cm5", "", nil},
	}
	var cont string
	for _, st := range steps {
		want := wireCaptures(t, st.file)[0]
		p := st.path
		if strings.HasSuffix(p, "continue=") {
			p += cont
		}
		got := c.do(st.method, p, st.body, st.headers...)
		if got.code != want.code {
			t.Fatalf("%s: %s %s = %d %s, want %d", st.file, st.method, p, got.code, got.body, want.code)
		}
		if ct := got.header.Get("Content-Type"); ct != want.header.Get("content-type") {
			t.Errorf("%s: Content-Type = %q, want %q", st.file, ct, want.header.Get("content-type"))
		}
		sameShape(t, st.file, got.body, want.body)
		if st.file == "09-list-paged.txt" {
			m := got.json(t)
			cont, _ = field(m, "metadata.continue").(string)
			checkContinueToken(t, cont, field(m, "metadata.resourceVersion").(string), "/cm2\x00")
		}
	}

	t.Run("21-watch-stream", func(t *testing.T) {
		want := wireCaptures(t, "21-watch-stream.txt")[0]
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		rv := s.CurrentResourceVersion()
		resp := c.open(ctx, "GET", "/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion="+rv, "")
		defer resp.Body.Close()
		if resp.StatusCode != want.code || resp.Header.Get("Content-Type") != want.header.Get("content-type") {
			t.Fatalf("watch = %d %q, want %d %q", resp.StatusCode, resp.Header.Get("Content-Type"), want.code, want.header.Get("content-type"))
		}
		c.mustDo(201, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"w1"},"data":{"a":"1"}}`)
		c.mustDo(200, "PATCH", "/api/v1/namespaces/default/configmaps/w1", `{"data":{"a":"2"}}`, "Content-Type", "application/merge-patch+json")
		c.mustDo(200, "DELETE", "/api/v1/namespaces/default/configmaps/w1", "")
		compareStream(t, resp, want.body)
	})

	t.Run("22-watchlist-stream", func(t *testing.T) {
		want := wireCaptures(t, "22-watchlist-stream.txt")[0]
		resp := c.open(context.Background(), "GET", "/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1", "")
		defer resp.Body.Close()
		lines := compareStream(t, resp, want.body)
		last := lines[len(lines)-1]
		if got := field(last, "object.metadata.resourceVersion"); got != s.CurrentResourceVersion() {
			t.Errorf("initial-events-end bookmark at %v, want the current %s", got, s.CurrentResourceVersion())
		}
	})
}

// checkContinueToken decodes a continue token and checks it is the real
// server's: base64url of {"v":"meta.k8s.io/v1","rv":N,"start":"/KEY\x00"}.
func checkContinueToken(t *testing.T, token, rv, start string) {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatalf("continue %q is not unpadded base64url: %v", token, err)
	}
	want := `{"v":"meta.k8s.io/v1","rv":` + rv + `,"start":` + mustJSONString(start) + `}`
	if string(raw) != want {
		t.Errorf("continue token = %s, want %s", raw, want)
	}
}

func mustJSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// compareStream reads watch lines until the stream ends and compares them
// with the captured lines, one by one.
func compareStream(t *testing.T, resp *http.Response, captured []byte) []map[string]any {
	t.Helper()
	wantLines := strings.Split(strings.TrimSpace(string(captured)), "\n")
	var got []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	deadline := time.AfterFunc(10*time.Second, func() { resp.Body.Close() })
	defer deadline.Stop()
	i := 0
	for sc.Scan() {
		line := sc.Bytes()
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("watch line %q: %v", line, err)
		}
		got = append(got, m)
		switch {
		case i < len(wantLines):
			sameShape(t, "watch line "+string(rune('0'+i)), line, []byte(wantLines[i]))
		case m["type"] != "BOOKMARK":
			// The captures were cut short; what follows may only be the
			// bookmark sent before the timeout ends the stream.
			t.Errorf("watch line %d = %s, want only a BOOKMARK after the captured lines", i, line)
		}
		i++
	}
	if i < len(wantLines) {
		t.Errorf("watch sent %d lines, want %d", i, len(wantLines))
	}
	return got
}

// TestCaptureWatchReplay replays capture 23: thirty configmaps created
// with nothing but a name (so without managedFields) and deleted, then a
// watch from before them, still inside the history window.
func TestCaptureWatchReplay(t *testing.T) {
	s, c := newTestServer(t, Options{})
	from := s.CurrentResourceVersion()
	for i := 1; i <= 30; i++ {
		c.mustDo(201, "POST", cmPath, `{"metadata":{"name":"c`+strconv.Itoa(i)+`"}}`)
	}
	for i := 1; i <= 30; i++ {
		c.mustDo(200, "DELETE", cmPath+"/c"+strconv.Itoa(i), "")
	}
	want := wireCaptures(t, "23-watch-from-old-rv-still-in-window.txt")[0]
	resp := c.open(context.Background(), "GET", cmPath+"?watch=1&timeoutSeconds=1&resourceVersion="+from, "")
	defer resp.Body.Close()
	compareStream(t, resp, want.body)
}
