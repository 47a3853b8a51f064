// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func watcherOn(s string) *Watcher {
	return NewWatcher(io.NopCloser(strings.NewReader(s)), nil)
}

func TestWatchCapture(t *testing.T) {
	w := watcherOn(string(readCapture(t, "21-watch-stream.txt").body))
	defer w.Stop()
	want := []struct {
		typ  EventType
		data string
		rv   string
	}{
		{Added, "1", "289"}, {Modified, "2", "290"}, {Deleted, "2", "291"}, {Bookmark, "", "291"},
	}
	for i, wt := range want {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("event %d: Next() error %v", i, err)
		}
		if ev.Type != wt.typ {
			t.Errorf("event %d: type %s, want %s", i, ev.Type, wt.typ)
		}
		if ev.Type == Bookmark {
			if ev.ResourceVersion != wt.rv || ev.InitialEventsEnd {
				t.Errorf("bookmark = %+v, want rv %s and not the initial-events end", ev, wt.rv)
			}
			continue
		}
		var cm ConfigMap
		if err := ev.Decode(&cm); err != nil {
			t.Fatal(err)
		}
		if cm.Name != "w1" || cm.Data["a"] != wt.data || cm.ResourceVersion != wt.rv {
			t.Errorf("event %d: object %s rv %s data %v, want w1 rv %s a=%s", i, cm.Name, cm.ResourceVersion, cm.Data, wt.rv, wt.data)
		}
	}
	if _, err := w.Next(); err != io.EOF {
		t.Errorf("Next() at end = %v, want io.EOF", err)
	}
}

func TestWatchListCapture(t *testing.T) {
	w := watcherOn(string(readCapture(t, "22-watchlist-stream.txt").body))
	var added int
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("Next() error %v after %d adds", err, added)
		}
		if ev.Type == Added {
			added++
			continue
		}
		if ev.Type != Bookmark || !ev.InitialEventsEnd || ev.ResourceVersion != "291" {
			t.Fatalf("event %+v, want the initial-events-end bookmark at 291", ev)
		}
		break
	}
	if added != 6 {
		t.Errorf("initial ADDED events = %d, want 6", added)
	}
}

func TestWatchErrorEvent(t *testing.T) {
	w := watcherOn(string(readCapture(t, "23b-watch-too-old.txt").body))
	_, err := w.Next()
	if !IsGone(err) {
		t.Fatalf("Next() = %v, want a 410 that IsGone reports", err)
	}
	if !strings.Contains(err.Error(), "too old resource version: 300 (321)") {
		t.Errorf("error %q does not carry the server's message", err)
	}
}

func TestWatchGarbage(t *testing.T) {
	good := `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"5"}}}` + "\n"
	tests := []struct {
		name   string
		stream string
		want   string // in the error
	}{
		{"not json", "hello world\n", `11 bytes, not JSON`},
		{"truncated object", `{"type":"ADDED","object":{"kind":"Conf` + "\n", `not an event`},
		{"no type", `{"object":{}}` + "\n", "no type or object"},
		{"unknown type", `{"type":"EXPLODED","object":{}}` + "\n", `unknown event type "EXPLODED"`},
		{"error without status", `{"type":"ERROR","object":{"kind":"Foo"}}` + "\n", "ERROR event without a Status"},
		{"bad bookmark", `{"type":"BOOKMARK","object":{"metadata":[]}}` + "\n", "decode bookmark"},
		// A line of the stream is not quoted, even when it looks like a
		// proxy's page: it may be a piece of anything (a Secret's data).
		{"html", "<html><body>502 Bad Gateway</body></html>\n", "41 bytes of markup, not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := watcherOn(good + tt.stream + good)
			if ev, err := w.Next(); err != nil || ev.Type != Added {
				t.Fatalf("first Next() = %v, %v, want the good event", ev.Type, err)
			}
			_, err := w.Next()
			if err == nil || err == io.EOF {
				t.Fatalf("Next() on garbage = %v, want an error", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Next() error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestWatchMalformedObjectFailsDecode(t *testing.T) {
	w := watcherOn(`{"type":"ADDED","object":{"metadata":{"name":[1,2]}}}` + "\n")
	ev, err := w.Next()
	if err != nil {
		t.Fatal(err)
	}
	var cm ConfigMap
	if err := ev.Decode(&cm); err == nil || !strings.Contains(err.Error(), "decode ADDED event") {
		t.Errorf("Decode() = %v, want an error naming the event", err)
	}
}

func TestWatchLongLine(t *testing.T) {
	big := strings.Repeat("x", 200<<10)
	stream := fmt.Sprintf(`{"type":"ADDED","object":{"metadata":{"name":"a"},"data":{"k":%q}}}`+"\n", big)
	w := watcherOn(stream + stream)
	for i := 0; i < 2; i++ {
		ev, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		var cm ConfigMap
		if err := ev.Decode(&cm); err != nil {
			t.Fatal(err)
		}
		if cm.Data["k"] != big {
			t.Fatalf("event %d: value of %d bytes, want %d", i, len(cm.Data["k"]), len(big))
		}
	}
}

func TestWatchEventTooLarge(t *testing.T) {
	r := io.MultiReader(strings.NewReader(`{"type":"ADDED","object":{"data":"`), &endless{})
	w := NewWatcher(io.NopCloser(r), nil)
	_, err := w.Next()
	if !errors.Is(err, ErrObjectTooLarge) || strings.Contains(err.Error(), "xxx") {
		t.Fatalf("Next() = %v, want ErrObjectTooLarge, without quoting the event", err)
	}
}

type endless struct{}

func (*endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

func TestWatchCutMidEvent(t *testing.T) {
	w := NewWatcher(io.NopCloser(io.MultiReader(strings.NewReader(`{"type":"ADDED","obj`), errReader{io.ErrUnexpectedEOF})), nil)
	_, err := w.Next()
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Next() = %v, want io.ErrUnexpectedEOF in the chain", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestWatchStop(t *testing.T) {
	pr, pw := io.Pipe()
	w := NewWatcher(pr, nil)
	go func() {
		pw.Write([]byte(`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}}` + "\n"))
	}()
	if ev, err := w.Next(); err != nil || ev.ResourceVersion != "9" {
		t.Fatalf("Next() = %+v, %v", ev, err)
	}
	w.Stop()
	w.Stop() // twice is fine
	if _, err := w.Next(); err == nil {
		t.Fatal("Next() after Stop succeeded")
	}
}

func FuzzWatch(f *testing.F) {
	f.Add([]byte(`{"type":"ADDED","object":{"metadata":{"name":"a"}}}` + "\n"))
	f.Add([]byte(`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"1","annotations":{"k8s.io/initial-events-end":"true"}}}}`))
	f.Add([]byte(`{"type":"ERROR","object":{"kind":"Status","code":410}}`))
	f.Add([]byte("\n\n{}\n}}\n{\"type\":\"\",\"object\":}}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		w := NewWatcher(io.NopCloser(bytes.NewReader(b)), nil)
		for i := 0; i < 1000; i++ {
			ev, err := w.Next()
			if err != nil {
				return
			}
			var u Unstructured
			_ = ev.Decode(&u)
		}
	})
}

// TestParseEventKeysExact: an event's members are "type" and "object"
// exactly, as client-go decodes a watch event; "Type" or "OBJECT" are
// unknown members, not the event's.
func TestParseEventKeysExact(t *testing.T) {
	jd := newDecoders().all
	for _, tc := range []struct {
		line     string
		wantType EventType
		wantObj  string
	}{
		{`{"object":{"a":1},"type":"ADDED"}`, "ADDED", `{"a":1}`},
		{`{"Type":"DELETED","type":"ADDED","Object":{"b":2},"object":{"a":1}}`, "ADDED", `{"a":1}`},
		{`{"type":"ADDED","object":{"a":1},"OBJECT":{"b":2},"TYPE":"DELETED"}`, "ADDED", `{"a":1}`},
		{`{"Type":"ADDED","object":{"a":1}}`, "", ""},
		{`{"type":"ADDED","Object":{"a":1}}`, "", ""},
		{`{"type":"ADDED","objecſ":{"a":1}}`, "", ""},
	} {
		ev, err := parseEvent(jd, []byte(tc.line))
		if tc.wantType == "" {
			if err == nil {
				t.Errorf("parseEvent(%s) = %s %s, want an error (no type or object)", tc.line, ev.Type, ev.Object)
			}
			continue
		}
		if err != nil || ev.Type != tc.wantType || string(ev.Object) != tc.wantObj {
			t.Errorf("parseEvent(%s) = %s %s, %v; want %s %s", tc.line, ev.Type, ev.Object, err, tc.wantType, tc.wantObj)
		}
	}
}
