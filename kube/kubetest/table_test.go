// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

const acceptTable = "application/json;as=Table;v=v1;g=meta.k8s.io"

// tableCells returns the cells of each row of a Table body, as JSON.
func tableCells(t *testing.T, m map[string]any) []string {
	t.Helper()
	rows, _ := m["rows"].([]any)
	var out []string
	for _, r := range rows {
		b, _ := json.Marshal(r.(map[string]any)["cells"])
		out = append(out, string(b))
	}
	return out
}

func columnNames(m map[string]any) string {
	cols, _ := m["columnDefinitions"].([]any)
	var names []string
	for _, c := range cols {
		cm := c.(map[string]any)
		names = append(names, fmt.Sprintf("%s:%s:%v", cm["name"], cm["type"], cm["priority"]))
	}
	return strings.Join(names, ",")
}

// TestTableNegotiation checks which Accept headers get a Table, as the
// real server answers them: the first acceptable entry wins, Tables exist
// in meta.k8s.io v1 and v1beta1 only, and nothing acceptable is a 406.
func TestTableNegotiation(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustDo(http.StatusCreated, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"a"}}`)
	for _, tc := range []struct {
		accept string
		code   int
		kind   string
	}{
		{acceptTable, 200, "Table meta.k8s.io/v1"},
		{"application/json;as=Table;v=v1beta1;g=meta.k8s.io", 200, "Table meta.k8s.io/v1beta1"},
		{"application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json", 200, "Table meta.k8s.io/v1"},
		{"application/json;as=Table;v=v2;g=meta.k8s.io, application/json", 200, "ConfigMapList v1"},
		{"application/json;as=Table;v=v2;g=meta.k8s.io", 406, "Status v1"},
		{"application/json;as=Table;g=meta.k8s.io", 406, "Status v1"},
		{"*/*;as=Table;v=v1;g=meta.k8s.io", 200, "Table meta.k8s.io/v1"},
		{"application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io," + acceptTable, 200, "PartialObjectMetadataList meta.k8s.io/v1"},
	} {
		r := c.do("GET", "/api/v1/namespaces/default/configmaps", "", "Accept", tc.accept)
		m := r.json(t)
		if got := fmt.Sprintf("%s %s", m["kind"], m["apiVersion"]); r.code != tc.code || got != tc.kind {
			t.Errorf("Accept %q = %d %s, want %d %s", tc.accept, r.code, got, tc.code, tc.kind)
		}
	}
}

// TestTableIncludeObject checks what each row carries.
func TestTableIncludeObject(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustDo(http.StatusCreated, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"a","labels":{"x":"y"}},"data":{"k":"v"}}`)
	for _, tc := range []struct{ query, want string }{
		{"", `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata.name":"a","data":null}`},
		{"?includeObject=Metadata", `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata.name":"a","data":null}`},
		{"?includeObject=Object", `{"kind":"ConfigMap","apiVersion":"v1","metadata.name":"a","data":{"k":"v"}}`},
		{"?includeObject=None", `null`},
	} {
		for _, p := range []string{"/api/v1/namespaces/default/configmaps", "/api/v1/namespaces/default/configmaps/a"} {
			m := c.mustDo(200, "GET", p+tc.query, "", "Accept", acceptTable)
			row := m["rows"].([]any)[0].(map[string]any)
			got := "null"
			if o, ok := row["object"].(map[string]any); ok {
				b, _ := json.Marshal(o["data"])
				got = fmt.Sprintf(`{"kind":%q,"apiVersion":%q,"metadata.name":%q,"data":%s}`, o["kind"], o["apiVersion"], field(o, "metadata.name"), b)
			}
			if got != tc.want {
				t.Errorf("GET %s%s row object = %s, want %s", p, tc.query, got, tc.want)
			}
		}
	}
	r := c.do("GET", "/api/v1/namespaces/default/configmaps?includeObject=All", "", "Accept", acceptTable)
	want := `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`
	if msg, _ := r.json(t)["message"].(string); r.code != 400 || msg != want {
		t.Errorf("includeObject=All = %d %q, want 400 %q", r.code, msg, want)
	}
}

// TestTableListPaging checks that a paged Table carries the list's
// continue token and remaining count, and that a page continues.
func TestTableListPaging(t *testing.T) {
	_, c := newTestServer(t, Options{})
	for _, n := range []string{"a", "b", "c"} {
		c.mustDo(http.StatusCreated, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"`+n+`"},"data":{"k":"v"}}`)
	}
	m := c.mustDo(200, "GET", "/api/v1/namespaces/default/configmaps?limit=2", "", "Accept", acceptTable)
	cont, _ := field(m, "metadata.continue").(string)
	if cont == "" || field(m, "metadata.remainingItemCount") != 1.0 || len(m["rows"].([]any)) != 2 {
		t.Fatalf("first page metadata = %v with %d rows, want a continue token, 1 remaining, 2 rows", m["metadata"], len(m["rows"].([]any)))
	}
	m = c.mustDo(200, "GET", "/api/v1/namespaces/default/configmaps?limit=2&continue="+cont, "", "Accept", acceptTable)
	if got := tableCells(t, m); len(got) != 1 || !strings.HasPrefix(got[0], `["c",1,`) {
		t.Errorf("second page cells = %v, want the row of c", got)
	}
	if field(m, "metadata.continue") != nil {
		t.Errorf("last page continue = %v, want none", field(m, "metadata.continue"))
	}
}

// TestTableAge checks that age cells are computed when the answer is
// written, in the real server's notation.
func TestTableAge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := newTestServer(t, Options{})
		c.mustDo(http.StatusCreated, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"a"}}`)
		for _, step := range []struct {
			sleep time.Duration
			want  string
		}{{0, "0s"}, {310 * time.Second, "5m10s"}, {3 * time.Hour, "3h5m"}, {9 * 24 * time.Hour, "9d"}} {
			time.Sleep(step.sleep)
			m := c.mustDo(200, "GET", "/api/v1/namespaces/default/configmaps/a", "", "Accept", acceptTable)
			if got := tableCells(t, m)[0]; got != `["a",0,"`+step.want+`"]` {
				t.Errorf("after %v more: cells %s, want age %s", step.sleep, got, step.want)
			}
		}
	})
}

// TestTableWatch checks a Table watch: one single-row Table per event,
// the columns in the first only, and the bookmark ending the initial
// events printed from the empty bookmark object, keeping its metadata
// even with includeObject=None.
func TestTableWatch(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustDo(http.StatusCreated, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"a"}}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := c.open(ctx, "GET", "/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&includeObject=None", "", "Accept", acceptTable)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	next := func() map[string]any {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("watch ended: %v", sc.Err())
		}
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("event %s: %v", sc.Bytes(), err)
		}
		return ev
	}
	ev := next()
	obj := ev["object"].(map[string]any)
	if ev["type"] != "ADDED" || obj["kind"] != "Table" || columnNames(obj) != "Name:string:0,Data:string:0,Age:string:0" {
		t.Fatalf("first event %v %v with columns %s, want ADDED Table with the ConfigMap columns", ev["type"], obj["kind"], columnNames(obj))
	}
	ev = next()
	obj = ev["object"].(map[string]any)
	row := obj["rows"].([]any)[0].(map[string]any)
	if ev["type"] != "BOOKMARK" || obj["columnDefinitions"] != nil || tableCells(t, obj)[0] != `["",0,"\u003cunknown\u003e"]` ||
		annotation(row) != "true" {
		t.Fatalf("second event = %s, want the initial-events-end bookmark as a row without columns", sc.Bytes())
	}
	c.mustDo(http.StatusCreated, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"b"},"data":{"x":"y"}}`)
	ev = next()
	obj = ev["object"].(map[string]any)
	if ev["type"] != "ADDED" || obj["columnDefinitions"] != nil || tableCells(t, obj)[0] != `["b",1,"0s"]` ||
		obj["rows"].([]any)[0].(map[string]any)["object"] != nil || field(obj, "metadata.resourceVersion") == "" {
		t.Errorf("third event = %s, want ADDED b without columns or object", sc.Bytes())
	}
}

// annotation is the initial-events-end annotation of a row's object.
func annotation(row map[string]any) any {
	a, _ := field(row, "object.metadata.annotations").(map[string]any)
	return a["k8s.io/initial-events-end"]
}

// BenchmarkListTable measures a list of 500 ConfigMaps as kubectl get asks
// for it, against the same list as JSON.
func BenchmarkListTable(b *testing.B) {
	s := New(Options{})
	defer s.Close()
	seedConfigMaps(b, s, 500)
	c := newClient(b, s)
	for _, bc := range []struct{ name, accept string }{{"JSON", "application/json"}, {"Table", acceptTable}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if r := c.do("GET", cmPath, "", "Accept", bc.accept); r.code != 200 {
					b.Fatalf("list = %d", r.code)
				}
			}
		})
	}
}
