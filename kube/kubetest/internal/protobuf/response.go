// SPDX-License-Identifier: Apache-2.0

package protobuf

import (
	"bytes"
	"encoding/binary"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file turns kubetest's JSON answers into protobuf ones, for the
// requests whose Accept header chose protobuf: the handlers keep writing
// JSON, and a ResponseWriter put in front of them transcodes each answer
// (an object, a list, a Status) or, for a watch, each event, into what
// kube-apiserver writes:
//
//   - an answer is the magic and a runtime.Unknown (EncodeObject), with
//     Content-Type application/vnd.kubernetes.protobuf;
//   - a watch is a stream of frames, each a 4-byte big-endian length and a
//     meta/v1 WatchEvent (type 1, object 2: a RawExtension whose raw is the
//     object's protobuf body), with Content-Type
//     application/vnd.kubernetes.protobuf;stream=watch.
//
// An answer whose kind has no protobuf form (a Table, a custom resource)
// and anything not JSON go out unchanged.

// WatchMediaType is the Content-Type of a protobuf watch.
const WatchMediaType = MediaType + ";stream=watch"

// ResponseWriter transcodes the JSON its handler writes into protobuf.
// A single answer is held until Finish, which the server must call once
// the handler returns; watch events are written as they complete. It is
// used by one request's goroutine at a time, as an http.ResponseWriter is.
type ResponseWriter struct {
	w    http.ResponseWriter
	as   Answers
	code int
	mode writeMode
	body bytes.Buffer // a held answer, or a watch's incomplete line
}

// Answers says which answers a ResponseWriter transcodes, as
// kube-apiserver negotiates them apart: objects (lists, watches, the
// metadata projection) by the whole Accept header, errors (codes 400 and
// above) by its first entry without parameters of its own
// (ErrorsPreferred), so that a custom resource's 404 to "protobuf, json"
// is protobuf and a 404 to a protobuf metadata projection is JSON.
type Answers struct {
	Objects, Errors bool
	// Watch says the request is a watch, whose 200 answer is a stream of
	// events.
	Watch bool
}

type writeMode int

const (
	modeUnset  writeMode = iota // no header written yet
	modeHold                    // a JSON answer, transcoded at Finish
	modeStream                  // a JSON watch, transcoded line by line
	modePass                    // not transcoded: written as it comes
)

// NewResponseWriter returns a ResponseWriter writing to w that transcodes
// the answers as says.
func NewResponseWriter(w http.ResponseWriter, as Answers) *ResponseWriter {
	return &ResponseWriter{w: w, as: as}
}

// ErrorsPreferred reports whether the first entry of accept without
// parameters of its own (no as=, g=, v=) that the server can write is
// protobuf: kube-apiserver then writes its errors in protobuf.
func ErrorsPreferred(accept string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["as"] != "" {
			continue
		}
		switch mt {
		case MediaType:
			return true
		case "application/json", "application/yaml", "*/*", "application/*":
			return false
		}
	}
	return false
}

// Header is the header of the answer.
func (p *ResponseWriter) Header() http.Header { return p.w.Header() }

// Unwrap gives http.ResponseController the writer underneath.
func (p *ResponseWriter) Unwrap() http.ResponseWriter { return p.w }

// WriteHeader holds a JSON answer's header until Finish, or starts a
// protobuf watch stream.
func (p *ResponseWriter) WriteHeader(code int) {
	if p.mode != modeUnset {
		return
	}
	h := p.w.Header()
	mt, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	transcode := p.as.Objects
	if code >= http.StatusBadRequest {
		transcode = p.as.Errors
	}
	switch {
	case strings.TrimSpace(mt) != "application/json" || !transcode:
		p.mode = modePass
		p.w.WriteHeader(code)
	case p.as.Watch && code == http.StatusOK:
		p.mode = modeStream
		h.Set("Content-Type", WatchMediaType)
		h.Del("Content-Length")
		p.w.WriteHeader(code)
	default:
		p.mode, p.code = modeHold, code
	}
}

// Write takes the handler's bytes: held, transcoded per watch event, or
// passed on.
func (p *ResponseWriter) Write(b []byte) (int, error) {
	if p.mode == modeUnset {
		p.WriteHeader(http.StatusOK)
	}
	switch p.mode {
	case modeHold:
		return p.body.Write(b)
	case modeStream:
		p.body.Write(b)
		for {
			line, _, ok := bytes.Cut(p.body.Bytes(), []byte("\n"))
			if !ok {
				return len(b), nil
			}
			if len(bytes.TrimSpace(line)) > 0 {
				if _, err := p.w.Write(watchFrame(line)); err != nil {
					return 0, err
				}
			}
			p.body.Next(len(line) + 1)
		}
	}
	return p.w.Write(b)
}

// FlushError flushes what has been written (whole watch events).
func (p *ResponseWriter) FlushError() error {
	return http.NewResponseController(p.w).Flush()
}

// Finish writes a held answer, in protobuf when its kind has a protobuf
// form, else as the JSON it was.
func (p *ResponseWriter) Finish() {
	if p.mode != modeHold {
		return
	}
	p.mode = modePass
	body := p.body.Bytes()
	h := p.w.Header()
	if pb, ok := encodeJSON(body); ok {
		body = pb
		h.Set("Content-Type", MediaType)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	p.w.WriteHeader(p.code)
	_, _ = p.w.Write(body)
}

// encodeJSON transcodes a JSON object into a protobuf body; ok is false
// when it is not an object of a kind with a protobuf form.
func encodeJSON(body []byte) ([]byte, bool) {
	var v any
	if err := unstructured.DecodeExact(body, &v); err != nil {
		return nil, false
	}
	o, isObj := v.(obj)
	if !isObj {
		return nil, false
	}
	pb, ok, err := EncodeObject(o)
	if err != nil || !ok {
		return nil, false
	}
	return pb, true
}

// watchFrame transcodes one JSON watch event into a length-prefixed
// WatchEvent frame. A line that is no event of a kind with a protobuf
// form (fault injection's garbage) becomes a frame of its bytes, which a
// client fails to decode as it would fail on the JSON.
func watchFrame(line []byte) []byte {
	msg := append([]byte(nil), line...)
	var v any
	if err := unstructured.DecodeExact(line, &v); err == nil {
		ev, _ := v.(obj)
		typ, _ := ev["type"].(string)
		object, _ := ev["object"].(obj)
		if pb, ok, err := EncodeObject(object); ok && err == nil && typ != "" {
			msg = appendBytes(nil, 1, []byte(typ))
			msg = appendBytes(msg, 2, appendBytes(nil, 1, pb))
		}
	}
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(msg)))
	return append(frame, msg...)
}

// DecodeWatchEvent reads one WatchEvent message (a frame without its
// length): its type and its object decoded as DecodeObject decodes a
// body.
func DecodeWatchEvent(msg []byte) (typ string, object obj, err error) {
	fields, err := protoFields(msg)
	if err != nil {
		return "", nil, err
	}
	for _, f := range fields {
		switch f.num {
		case 1:
			typ = string(f.bytes)
		case 2:
			raw, err := protoFields(f.bytes)
			if err != nil {
				return "", nil, err
			}
			for _, r := range raw {
				if r.num == 1 {
					if object, _, err = DecodeObject(r.bytes); err != nil {
						return "", nil, err
					}
				}
			}
		}
	}
	return typ, object, nil
}
