// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/discovery"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// client talks to a server in-process, as a test's user agent.
type client struct {
	t     testing.TB
	s     *Server
	http  *http.Client
	ua    string
	token string
}

func newClient(t testing.TB, s *Server) *client {
	return &client{t: t, s: s, http: &http.Client{Transport: s.Transport()}, ua: "curl/8.5.0"}
}

// response is a read response.
type response struct {
	code   int
	header http.Header
	body   []byte
}

// json decodes the body into a map (or fails the test).
func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("decode %d body %q: %v", r.code, r.body, err)
	}
	return m
}

// do sends a request and reads the whole response.
func (c *client) do(method, path, body string, headers ...string) response {
	c.t.Helper()
	resp := c.open(context.Background(), method, path, body, headers...)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return response{code: resp.StatusCode, header: resp.Header, body: b}
}

// open sends a request and returns the response unread.
func (c *client) open(ctx context.Context, method, path, body string, headers ...string) *http.Response {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, "https://kubetest.invalid"+path, rd)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	req.Header.Set("User-Agent", c.ua)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// mustDo is do that fails the test unless the code is want.
func (c *client) mustDo(want int, method, path, body string, headers ...string) map[string]any {
	c.t.Helper()
	r := c.do(method, path, body, headers...)
	if r.code != want {
		c.t.Fatalf("%s %s = %d %s, want %d", method, path, r.code, r.body, want)
	}
	if len(r.body) == 0 || r.body[0] != '{' {
		return nil
	}
	return r.json(c.t)
}

// capture is one request and response from shared/wire.
type capture struct {
	request string
	code    int
	header  http.Header
	body    []byte
}

// wireCaptures reads a capture file of testdata/wire.
func wireCaptures(t testing.TB, name string) []capture {
	t.Helper()
	f, err := os.Open("testdata/wire/" + name)
	if err != nil {
		t.Fatalf("open capture: %v", err)
	}
	defer f.Close()
	var out []capture
	var cur *capture
	inBody := false
	var body strings.Builder
	flush := func() {
		if cur != nil {
			cur.body = []byte(strings.TrimSpace(body.String()))
			out = append(out, *cur)
		}
		body.Reset()
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "### request: "):
			flush()
			cur = &capture{request: strings.TrimPrefix(line, "### request: "), header: http.Header{}}
			inBody = false
		case cur != nil && strings.HasPrefix(line, "HTTP/") && cur.code == 0:
			fields := strings.Fields(line)
			cur.code, _ = strconv.Atoi(fields[1])
		case cur != nil && !inBody && line == "":
			inBody = true
		case cur != nil && !inBody:
			k, v, _ := strings.Cut(line, ": ")
			cur.header.Add(k, v)
		case inBody:
			body.WriteString(line + "\n")
		}
	}
	flush()
	return out
}

// volatile fields differ between runs and servers; normalize replaces
// their values.
var volatileKeys = map[string]bool{"uid": true, "resourceVersion": true, "creationTimestamp": true,
	"time": true, "deletionTimestamp": true, "continue": true, "lastTransitionTime": true}

// normalize returns v with volatile values replaced by "X" and generated
// name suffixes left alone (callers pick names).
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, v := range t {
			if volatileKeys[k] {
				if _, isString := v.(string); isString {
					out[k] = "X"
					continue
				}
			}
			out[k] = normalize(v)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, v := range t {
			out[i] = normalize(v)
		}
		return out
	}
	return v
}

// sameShape compares two JSON documents after normalize and reports the
// difference.
func sameShape(t testing.TB, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: decode got %q: %v", what, got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: decode want %q: %v", what, want, err)
	}
	if !reflect.DeepEqual(normalize(g), normalize(w)) {
		gb, _ := json.MarshalIndent(normalize(g), "", " ")
		wb, _ := json.MarshalIndent(normalize(w), "", " ")
		t.Errorf("%s: body differs from the capture\ngot:  %s\nwant: %s", what, gb, wb)
	}
}

// field reads a dotted path of a decoded object.
func field(m map[string]any, dotted string) any {
	v, _ := unstructured.Path(m, dotted)
	return v
}

// newTestServer returns a server closed when the test ends, and a client.
func newTestServer(t testing.TB, opts Options) (*Server, *client) {
	s := New(opts)
	t.Cleanup(s.Close)
	return s, newClient(t, s)
}

// gvrConfigMaps names core configmaps for the seeding methods.
var gvrConfigMaps = kube.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// mustJSON encodes v, a value of plain data.
func mustJSON(v any) []byte { return discovery.MustJSON(v) }
