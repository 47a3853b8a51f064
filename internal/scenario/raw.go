// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// rawResponse is an answer read whole, for the scenarios that look at
// what kube.Client does not show: Warning headers, caching headers,
// redirects, exact Status messages.
type rawResponse struct {
	code   int
	header http.Header
	body   []byte
}

// status decodes a Status answer.
func (r rawResponse) status(t *testing.T) (message, reason string) {
	t.Helper()
	var st struct {
		Message string `json:"message"`
		Reason  string `json:"reason"`
	}
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatalf("decode Status %q: %v", r.body, err)
	}
	return st.Message, st.Reason
}

// object decodes an object answer.
func (r rawResponse) object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("decode %q: %v", r.body, err)
	}
	return m
}

// warnings returns the texts of the Warning headers, in order.
func (r rawResponse) warnings() []string {
	var out []string
	for _, h := range r.header.Values("Warning") {
		// 299 - "text"
		_, quoted, ok := strings.Cut(h, " - ")
		if !ok {
			out = append(out, h)
			continue
		}
		var text string
		if err := json.Unmarshal([]byte(quoted), &text); err != nil {
			text = quoted
		}
		out = append(out, text)
	}
	return out
}

// send sends a request to the server with the environment's credentials,
// without following redirects. headers are name, value pairs.
func (f *fixture) send(t *testing.T, method, path, contentType, body string, headers ...string) rawResponse {
	t.Helper()
	return f.sendAs(t, f.env.Config, method, path, contentType, body, headers...)
}

// sendAs is send with cfg's credentials.
func (f *fixture) sendAs(t *testing.T, cfg *kube.Config, method, path, contentType, body string, headers ...string) rawResponse {
	t.Helper()
	hc, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	client := *hc
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	var rd io.Reader
	if body != "" {
		rd = bytes.NewReader([]byte(body))
	}
	ctx, cancel := context.WithTimeout(f.ctx, f.env.Wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(cfg.Host, "/")+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read: %v", method, path, err)
	}
	return rawResponse{code: resp.StatusCode, header: resp.Header, body: out}
}

// expectStatus checks an error answer's code, reason and exact message.
func expectStatus(t *testing.T, what string, r rawResponse, code int, reason, message string) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s = %d %s, want %d", what, r.code, r.body, code)
		return
	}
	msg, rsn := r.status(t)
	if msg = maskedIfWanted(msg, message); rsn != reason || msg != message {
		t.Errorf("%s: reason %q message\n  %q\nwant reason %q message\n  %q", what, rsn, msg, reason, message)
	}
}

// expectWarnings checks the Warning headers of an answer.
func expectWarnings(t *testing.T, what string, r rawResponse, want ...string) {
	t.Helper()
	got := r.warnings()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: warnings %q, want %q", what, got, want)
	}
}
