// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// EventType is the type of a watch event.
type EventType string

// The event types of a watch stream.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Bookmark EventType = "BOOKMARK"
	Error    EventType = "ERROR"
)

// InitialEventsEndAnnotation marks the bookmark that ends the initial
// state of a WatchList stream.
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

// WatchEvent is one event of a watch stream.
type WatchEvent struct {
	Type EventType
	// Object is the event's object as the server sent it. It points into
	// the watcher's read buffer: it is valid until the next call to Next,
	// so decode or copy it before then.
	Object json.RawMessage
	// ResourceVersion is set for bookmarks: the version the stream has
	// reached.
	ResourceVersion string
	// InitialEventsEnd is set on the bookmark that ends the initial state
	// of a WatchList (SendInitialEvents) stream.
	InitialEventsEnd bool

	// jd is the watcher's decoder, whose plans serve event after event.
	jd *jsondec.Decoder
}

// Decode decodes the event's object into obj in one pass over it, keys
// matched exactly as the API server matches them and otherwise with
// json.Unmarshal's result (see internal/jsondec). It is safe to call
// from any goroutine. Its error names the event type and the JSON path
// of the field that failed, not the object's content (which may be a
// Secret's data).
func (e *WatchEvent) Decode(obj any) error {
	if e == nil {
		return errors.New("decode watch event: the event is nil")
	}
	jd := e.jd
	if jd == nil { // an event a caller built: plans made for this call alone
		jd = jsondec.New(jsondec.Options{})
	}
	resetObject(obj)
	if err := unmarshal(jd, e.Object, obj); err != nil {
		return fmt.Errorf("decode %s event (%s): %w", e.Type, shapeOf(e.Object), err)
	}
	return nil
}

// Watcher reads a watch stream event by event, as the server flushes it.
// It holds one event at a time, never the whole stream: an event whose
// object is larger than the client's limit ([ClientOptions.MaxObjectSize];
// [DefaultMaxObjectSize] for [NewWatcher]) ends the stream with an error
// that wraps [ErrObjectTooLarge] and names the object. Next is for one
// goroutine; Stop may be called from any.
type Watcher struct {
	body      io.ReadCloser
	r         *bufio.Reader
	line      []byte // reused between events when an event spans buffers
	jd        *jsondec.Decoder
	maxObject int    // the object limit; an event may add watchEnvelope
	path      string // the request's path, for errors; "" for NewWatcher
	kind      string // the kind watched, for errors; "" for NewWatcher
	// initialMax bounds the bytes of the initial events of a WatchList,
	// up to the bookmark that ends them; initialRead is what they took so
	// far. initialMax is negative when there is no bound (a plain watch,
	// NewWatcher, or the initial events are over).
	initialMax, initialRead int64
	stop                    sync.Once
	cancel                  context.CancelFunc
}

// watchEnvelope is what an event adds to its object:
// {"type":"MODIFIED","object":...} and a newline, with room to spare.
const watchEnvelope = 4 << 10

// MaxWatchEventSize bounds one event of a stream read by [NewWatcher]: an
// object of [DefaultMaxObjectSize] and its envelope. [Client.Watch] uses
// [ClientOptions.MaxObjectSize] instead.
const MaxWatchEventSize = DefaultMaxObjectSize + watchEnvelope

// Watch opens a watch on objects of kind gvk. The stream ends when ctx is
// done, when [Watcher.Stop] is called, or when the server closes it (Next
// then returns [io.EOF]); the caller must call Stop in every case.
func (c *Client) Watch(ctx context.Context, gvk GroupVersionKind, opts ListOptions) (*Watcher, error) {
	m, err := c.Mapping(ctx, gvk)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", gvk.Kind, err)
	}
	r := &request{method: http.MethodGet, path: c.collectionPath(m, opts.Namespace), query: opts.query(true), safe: true}
	if opts.MetadataOnly {
		r.accept = acceptMetadata
	}
	ctx, cancel := context.WithCancel(ctx)
	resp, err := c.do(ctx, r)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("watch %s: %w", gvk.Kind, err)
	}
	w := NewWatcher(resp.Body, cancel)
	w.maxObject, w.path, w.kind, w.jd = c.maxObject(), r.path, gvk.Kind, c.decoder(opts)
	if opts.SendInitialEvents {
		w.initialMax = c.maxList()
	}
	return w, nil
}

// NewWatcher reads a watch stream from body. cancel, if not nil, is called
// by Stop (to end the request the body belongs to).
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func NewWatcher(body io.ReadCloser, cancel context.CancelFunc) *Watcher {
	return &Watcher{body: body, r: bufio.NewReaderSize(body, 32<<10), cancel: cancel, maxObject: DefaultMaxObjectSize,
		jd: jsondec.New(jsondec.Options{}), initialMax: -1}
}

// Stop ends the stream and releases the connection. It is safe to call
// more than once and concurrently with Next, which then returns an error.
func (w *Watcher) Stop() {
	if w == nil || w.body == nil {
		return // not a stream: nothing to stop
	}
	w.stop.Do(func() {
		if w.cancel != nil {
			w.cancel()
		}
		w.body.Close()
	})
}

// Next returns the next event. It returns io.EOF when the server ended the
// stream cleanly, a [*StatusError] for an ERROR event (for example a 410
// Expired: [IsGone]), and an error that describes what was read (its
// shape and size, never its content) when the stream holds something that
// is not an event.
func (w *Watcher) Next() (WatchEvent, error) {
	if w == nil || w.r == nil {
		return WatchEvent{}, errNoWatcher
	}
	line, err := w.readLine()
	if err != nil {
		return WatchEvent{}, err
	}
	if w.initialMax >= 0 {
		if w.initialRead += int64(len(line)) + 1; w.initialRead > w.initialMax {
			return WatchEvent{}, w.initialTooLarge()
		}
	}
	ev, err := parseEvent(w.jd, line)
	if err != nil {
		return WatchEvent{}, err
	}
	ev.jd = w.jd
	switch ev.Type {
	case Added, Modified, Deleted:
		return ev, nil
	case Bookmark:
		var b struct {
			Metadata struct {
				ResourceVersion string            `json:"resourceVersion"`
				Annotations     map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		if err := unmarshal(w.jd, ev.Object, &b); err != nil {
			return WatchEvent{}, fmt.Errorf("watch: decode bookmark (%s): %w", shapeOf(ev.Object), err)
		}
		ev.ResourceVersion = b.Metadata.ResourceVersion
		ev.InitialEventsEnd = b.Metadata.Annotations[InitialEventsEndAnnotation] == "true"
		if ev.InitialEventsEnd {
			w.initialMax = -1
		}
		return ev, nil
	case Error:
		var st Status
		if err := unmarshal(w.jd, ev.Object, &st); err != nil || st.Code == 0 && st.Reason == "" {
			return WatchEvent{}, fmt.Errorf("watch: ERROR event without a Status (%s)", shapeOf(ev.Object))
		}
		return WatchEvent{}, &StatusError{Status: st}
	default:
		return WatchEvent{}, fmt.Errorf("watch: unknown event type %s (%s)", typeName(ev.Type), shapeOf(ev.Object))
	}
}

// typeName shows an event type that reads as one (a word in capitals, as
// every type the server sends) and describes any other without quoting
// it: a line that is not an event may be a piece of anything.
func typeName(t EventType) string {
	if len(t) == 0 || len(t) > 32 || strings.IndexFunc(string(t), func(r rune) bool { return (r < 'A' || r > 'Z') && r != '_' }) >= 0 {
		return fmt.Sprintf("of %d bytes, not a word in capitals", len(t))
	}
	return `"` + string(t) + `"`
}

// readLine returns the next non-empty line without its newline. The slice
// is valid until the next call.
func (w *Watcher) readLine() ([]byte, error) {
	for {
		b, err := w.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			w.line = append(w.line[:0], b...)
			for err == bufio.ErrBufferFull {
				if len(w.line) > w.maxObject+watchEnvelope {
					return nil, w.tooLarge()
				}
				b, err = w.r.ReadSlice('\n')
				w.line = append(w.line, b...)
			}
			b = w.line
		}
		if err != nil && !(err == io.EOF && len(bytes.TrimSpace(b)) > 0) {
			if err == io.EOF {
				return nil, io.EOF
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("watch: stream cut: %w", err)
			}
			return nil, fmt.Errorf("watch: read stream: %w", err)
		}
		if b = bytes.TrimSpace(b); len(b) > 0 {
			return b, nil
		}
		if err == io.EOF {
			return nil, io.EOF
		}
	}
}

// initialTooLarge is the error for initial events of a WatchList that
// passed w.initialMax: a cache keeps them whole, as a list's items, so
// they are bounded as a list's answer ([ClientOptions.MaxListSize]).
func (w *Watcher) initialTooLarge() error {
	limit := w.initialMax
	w.initialMax = -1
	return fmt.Errorf("watch %s: %w", w.kind, listTooLarge("the initial events", limit, w.initialRead))
}

// tooLarge is the error for the event in w.line, which is too large; it
// lets go of the line.
func (w *Watcher) tooLarge() error {
	what := "watch"
	if w.path != "" {
		what += " " + w.path
	}
	what += ": event"
	if _, obj, ok := bytes.Cut(w.line, objectKey); ok {
		if name := nameIn(obj); name != "" {
			what += " for " + name
		}
	}
	w.line = nil
	return tooLarge(what, w.maxObject)
}

// eventPrefix is how the server starts every event line; parseEvent takes
// the event apart without decoding the object when the line has that shape.
var (
	eventPrefix = []byte(`{"type":"`)
	objectKey   = []byte(`","object":`)
)

// parseEvent splits a line into type and raw object. The common shape
// {"type":"T","object":{...}} is split in place; anything else goes through
// jsondec member by member, and a line that is not an event is an error
// that describes it without quoting it.
// The object itself is not validated here: [WatchEvent.Decode] reports a
// malformed one, and that is where it is decoded anyway.
func parseEvent(jd *jsondec.Decoder, line []byte) (WatchEvent, error) {
	if rest, ok := bytes.CutPrefix(line, eventPrefix); ok {
		if typ, obj, ok := bytes.Cut(rest, objectKey); ok && bytes.IndexByte(typ, '"') < 0 &&
			len(obj) >= 3 && obj[0] == '{' && bytes.HasSuffix(obj, []byte("}}")) {
			return WatchEvent{Type: EventType(typ), Object: obj[:len(obj)-1]}, nil
		}
	}
	var ev WatchEvent
	err := jd.Object(line, func(key []byte, v *jsondec.Value) error {
		// Members match the fields of an event exactly, as jsondec
		// matches keys and as client-go decodes a watch event.
		switch string(key) {
		case "type":
			ev.Type = ""
			return v.Decode(&ev.Type)
		case "object":
			ev.Object = nil
			return v.Decode(&ev.Object)
		}
		return nil
	})
	if err != nil {
		return WatchEvent{}, fmt.Errorf("watch: not an event (%s): %w", shapeOf(line), err)
	}
	if ev.Type == "" || len(ev.Object) == 0 || string(ev.Object) == "null" {
		return WatchEvent{}, fmt.Errorf("watch: not an event: no type or object (%s)", shapeOf(line))
	}
	return ev, nil
}
