// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// This file holds the Table scenarios: what kubectl get asks for (Accept:
// application/json;as=Table;v=v1;g=meta.k8s.io) and how the server
// answers it for gets, paged lists and watches, with includeObject. The
// per-kind columns and cells are in table_kinds.go. Requests are raw HTTP,
// since kubeloop's client never asks for Tables.

const (
	acceptTable        = "application/json;as=Table;v=v1;g=meta.k8s.io"
	acceptTableKubectl = acceptTable + ",application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
)

// table is a Table as the wire carries it.
type table struct {
	Kind, APIVersion string
	Metadata         struct {
		ResourceVersion    string
		Continue           string
		RemainingItemCount *int64
	}
	ColumnDefinitions []struct {
		Name, Type, Format, Description string
		Priority                        int
	}
	Rows []struct {
		Cells      []any
		Conditions []map[string]string
		Object     json.RawMessage
	}
}

// columns renders the column definitions as "Name:type:format:priority,..."
// and the SHA-256 of their descriptions (the API's field documentation,
// long prose the real server copies), first 12 hex digits.
func (tb *table) columns() (string, string) {
	var cols []string
	h := sha256.New()
	for _, c := range tb.ColumnDefinitions {
		cols = append(cols, fmt.Sprintf("%s:%s:%s:%d", c.Name, c.Type, c.Format, c.Priority))
		io.WriteString(h, c.Description+"\n")
	}
	return strings.Join(cols, ","), hex.EncodeToString(h.Sum(nil))[:12]
}

var (
	ageCell  = regexp.MustCompile(`^[0-9]+[smhdy]([0-9]+[smhd])?$`)
	timeCell = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
)

// rows renders each row's cells as JSON, with the ages of the objects'
// creation written "<age>" and RFC 3339 times "<time>": they depend on
// when the test runs. Ages of fixed timestamps ("2 (5h ago)") are kept.
func (tb *table) rows() []string {
	var out []string
	for _, r := range tb.Rows {
		cells := make([]any, len(r.Cells))
		for i, c := range r.Cells {
			s, ok := c.(string)
			switch {
			case ok && ageCell.MatchString(s) && isCreationAge(tb, i):
				cells[i] = "<age>"
			case ok && timeCell.MatchString(s):
				cells[i] = "<time>"
			default:
				cells[i] = c
			}
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(cells)
		out = append(out, strings.TrimSuffix(b.String(), "\n"))
	}
	return out
}

// isCreationAge reports whether column i shows the age of the object's
// creation.
func isCreationAge(tb *table, i int) bool {
	if i >= len(tb.ColumnDefinitions) {
		return true // a watch event after the first has no columns
	}
	return tb.ColumnDefinitions[i].Name == "Age"
}

// raw sends a request with the fixture's credentials and returns the
// status code and body.
func (f *fixture) raw(t *testing.T, method, path, body, accept, contentType string) (int, []byte) {
	t.Helper()
	resp := f.open(t, f.ctx, method, path, body, accept, contentType)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return resp.StatusCode, b
}

// open sends a request and returns the response unread.
func (f *fixture) open(t *testing.T, ctx context.Context, method, path, body, accept, contentType string) *http.Response {
	t.Helper()
	hc, err := f.env.Config.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(f.env.Config.Host, "/")+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if body != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// post creates an object from JSON, failing the test unless it is created.
func (f *fixture) post(t *testing.T, path, body string) {
	t.Helper()
	if code, b := f.raw(t, "POST", path, body, "", "application/json"); code != http.StatusCreated {
		t.Fatalf("POST %s = %d %s", path, code, b)
	}
}

// patch merge-patches an object (or its status), failing the test unless
// the server accepts it.
func (f *fixture) patch(t *testing.T, path, body string) {
	t.Helper()
	if code, b := f.raw(t, "PATCH", path, body, "", "application/merge-patch+json"); code != http.StatusOK {
		t.Fatalf("PATCH %s = %d %s", path, code, b)
	}
}

// getTable reads path as a Table, failing the test on any other answer.
func (f *fixture) getTable(t *testing.T, path, accept string) *table {
	t.Helper()
	code, b := f.raw(t, "GET", path, "", accept, "")
	if code != http.StatusOK {
		t.Fatalf("GET %s as Table = %d %s", path, code, b)
	}
	var tb table
	if err := json.Unmarshal(b, &tb); err != nil || tb.Kind != "Table" {
		t.Fatalf("GET %s as Table = %s (%v), want a Table", path, b, err)
	}
	return &tb
}

// rowObject describes a row's object: "null", or its kind, apiVersion,
// name and whether it carries data.
func rowObject(raw json.RawMessage) string {
	var o struct {
		Kind, APIVersion string
		Metadata         struct{ Name string }
		Data             map[string]string
	}
	if string(raw) == "null" || len(raw) == 0 {
		return "null"
	}
	_ = json.Unmarshal(raw, &o)
	return fmt.Sprintf("%s %s %s data=%v", o.Kind, o.APIVersion, o.Metadata.Name, o.Data)
}

// testTableProtocol checks the Table form itself: negotiation, the row
// objects of includeObject, paging and a watch.
func testTableProtocol(t *testing.T, f *fixture) {
	cms := "/api/v1/namespaces/" + f.ns + "/configmaps"
	for _, n := range []string{"a", "b", "c"} {
		f.post(t, cms, `{"metadata":{"name":"`+n+`"},"data":{"k":"`+n+`"}}`)
	}

	for _, tc := range []struct{ accept, want string }{
		{acceptTableKubectl, "200 Table meta.k8s.io/v1"},
		{"application/json;as=Table;v=v1beta1;g=meta.k8s.io", "200 Table meta.k8s.io/v1beta1"},
		{"application/json;as=Table;v=v2;g=meta.k8s.io,application/json", "200 ConfigMapList v1"},
		{"application/json;as=Table;v=v2;g=meta.k8s.io", "406 Status v1"},
	} {
		code, b := f.raw(t, "GET", cms, "", tc.accept, "")
		var m struct{ Kind, APIVersion string }
		_ = json.Unmarshal(b, &m)
		if got := fmt.Sprintf("%d %s %s", code, m.Kind, m.APIVersion); got != tc.want {
			t.Errorf("Accept %s: %s, want %s", tc.accept, got, tc.want)
		}
	}

	for _, tc := range []struct{ query, want string }{
		{"", "PartialObjectMetadata meta.k8s.io/v1 b data=map[]"},
		{"?includeObject=Object", "ConfigMap v1 b data=map[k:b]"},
		{"?includeObject=None", "null"},
	} {
		tb := f.getTable(t, cms+"/b"+tc.query, acceptTable)
		if len(tb.Rows) != 1 || rowObject(tb.Rows[0].Object) != tc.want || tb.Metadata.ResourceVersion == "" {
			t.Errorf("get b%s: %d rows, object %s, rv %q; want one row with %s", tc.query, len(tb.Rows),
				rowObject(tb.Rows[0].Object), tb.Metadata.ResourceVersion, tc.want)
		}
	}
	code, b := f.raw(t, "GET", cms+"?includeObject=Everything", "", acceptTable, "")
	if want := `Unable to convert to Table as requested: includeObject: Invalid value: \"Everything\": must be 'Metadata', 'Object', 'None', or empty`; code != 400 || !bytes.Contains(b, []byte(want)) {
		t.Errorf("includeObject=Everything = %d %s, want 400 %s", code, b, want)
	}

	page := f.getTable(t, cms+"?limit=2&includeObject=None", acceptTable)
	rest := int64(-1)
	if page.Metadata.RemainingItemCount != nil {
		rest = *page.Metadata.RemainingItemCount
	}
	if got := strings.Join(page.rows(), " "); got != `["a",1,"<age>"] ["b",1,"<age>"]` || page.Metadata.Continue == "" || rest != 1 {
		t.Fatalf("first page: rows %s, continue %q, remaining %d; want a and b, a token, 1", got, page.Metadata.Continue, rest)
	}
	page = f.getTable(t, cms+"?limit=2&includeObject=None&continue="+page.Metadata.Continue, acceptTable)
	if got := strings.Join(page.rows(), " "); got != `["c",1,"<age>"]` || page.Metadata.Continue != "" {
		t.Errorf("second page: rows %s, continue %q; want c and no token", got, page.Metadata.Continue)
	}

	f.tableWatch(t, cms, page.Metadata.ResourceVersion)
}

// tableWatch watches configmaps as Tables from rv, as kubectl get -w does
// after its list: each event is a Table of one row, and only the first
// carries the columns.
func (f *fixture) tableWatch(t *testing.T, cms, rv string) {
	ctx, cancel := context.WithCancel(f.ctx)
	defer cancel()
	resp := f.open(t, ctx, "GET", cms+"?watch=1&resourceVersion="+rv, "", acceptTableKubectl, "")
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Table watch = %d", resp.StatusCode)
	}
	f.post(t, cms, `{"metadata":{"name":"w"},"data":{"k":"v"}}`)
	f.patch(t, cms+"/w", `{"data":{"k2":"v"}}`)
	if code, b := f.raw(t, "DELETE", cms+"/w", "", "", ""); code != http.StatusOK {
		t.Fatalf("DELETE w = %d %s", code, b)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var got []string
	for len(got) < 3 && sc.Scan() {
		var ev struct {
			Type   string
			Object table
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("watch event %s: %v", sc.Bytes(), err)
		}
		cols, _ := ev.Object.columns()
		got = append(got, fmt.Sprintf("%s %s %s cols=%q rows=%s object=%s", ev.Type, ev.Object.Kind, ev.Object.APIVersion,
			cols, strings.Join(ev.Object.rows(), " "), rowObject(ev.Object.Rows[0].Object)))
	}
	want := []string{
		`ADDED Table meta.k8s.io/v1 cols="Name:string:name:0,Data:string::0,Age:string::0" rows=["w",1,"<age>"] object=PartialObjectMetadata meta.k8s.io/v1 w data=map[]`,
		`MODIFIED Table meta.k8s.io/v1 cols="" rows=["w",2,"<age>"] object=PartialObjectMetadata meta.k8s.io/v1 w data=map[]`,
		`DELETED Table meta.k8s.io/v1 cols="" rows=["w",2,"<age>"] object=PartialObjectMetadata meta.k8s.io/v1 w data=map[]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Table watch events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
