// SPDX-License-Identifier: Apache-2.0

package table

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestCRDPrinterColumns checks the columns a CRD version gets: the
// default Age column, descriptions, priorities, date cells, and the
// columns dropped from the first one whose JSONPath does not parse.
func TestCRDPrinterColumns(t *testing.T) {
	p := CRDPrinter(obj{})
	if got := columnsString(p); got != "Name:string:name:0,Age:date::0" || p.Columns[1].Description != descCreated {
		t.Errorf("default columns = %s (%q), want Name and Age", got, p.Columns[1].Description)
	}
	var v obj
	_ = json.Unmarshal([]byte(`{"additionalPrinterColumns":[
		{"name":"Started","type":"date","jsonPath":".status.started","description":"When."},
		{"name":"Wide","type":"integer","format":"int32","jsonPath":".spec.n","priority":1},
		{"name":"Bad","type":"string","jsonPath":".spec["},
		{"name":"After","type":"string","jsonPath":".spec.x"}]}`), &v)
	p = CRDPrinter(v)
	if got := columnsString(p); got != "Name:string:name:0,Started:date::0,Wide:integer:int32:1" {
		t.Errorf("columns = %s, want Name, Started, Wide (Bad and what follows dropped)", got)
	}
	if p.Columns[1].Description != "When." || p.Columns[2].Description != "Custom resource definition column (in JSONPath format): .spec.n" {
		t.Errorf("descriptions = %q, %q", p.Columns[1].Description, p.Columns[2].Description)
	}
	for started, want := range map[string]string{
		`"2026-11-23T10:00:00Z"`: `"6h16m"`, `""`: `"\u003cunknown\u003e"`, `"yesterday"`: `"\u003cinvalid\u003e"`,
		`5`: `null`, `"2026-11-23T16:17:30Z"`: `"\u003cinvalid\u003e"`, `"2026-11-23T16:16:31Z"`: `"0s"`,
	} {
		var o obj
		_ = json.Unmarshal([]byte(`{"metadata":{"name":"a"},"spec":{"n":2.9},"status":{"started":`+started+`}}`), &o)
		cells, _ := p.Cells(o, printedAt)
		b, _ := json.Marshal(cells)
		if string(b) != `["a",`+want+`,2]` {
			t.Errorf("started %s: cells %s, want [\"a\",%s,2]", started, b, want)
		}
	}
}

func columnsString(p *Printer) string {
	var s []string
	for _, c := range p.Columns {
		s = append(s, fmt.Sprintf("%s:%s:%s:%d", c.Name, c.Type, c.Format, c.Priority))
	}
	return strings.Join(s, ",")
}

func TestHumanDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-2 * time.Second, "<invalid>"}, {-time.Second, "0s"}, {0, "0s"}, {119 * time.Second, "119s"},
		{2 * time.Minute, "2m"}, {5*time.Minute + 10*time.Second, "5m10s"}, {10 * time.Minute, "10m"},
		{179 * time.Minute, "179m"}, {3 * time.Hour, "3h"}, {7*time.Hour + 59*time.Minute, "7h59m"},
		{8 * time.Hour, "8h"}, {47 * time.Hour, "47h"}, {48 * time.Hour, "2d"}, {7*24*time.Hour + 23*time.Hour, "7d23h"},
		{8 * 24 * time.Hour, "8d"}, {729 * 24 * time.Hour, "729d"}, {731 * 24 * time.Hour, "2y1d"},
		{8 * 365 * 24 * time.Hour, "8y"},
	} {
		if got := humanDuration(tc.d); got != tc.want {
			t.Errorf("humanDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
