// SPDX-License-Identifier: Apache-2.0

// Package watchenc writes a watch stream as kube-apiserver sends it in
// JSON: a 200 response ([Start]) carrying one event per line,
// {"type":...,"object":...} ([Event]), among them the bookmarks that carry
// only a resourceVersion ([Bookmark]) and the ERROR event of a 410 Expired
// Status that ends a watch ([Expired]). The server decides what to send
// and when; this package only encodes and sends it.
//
// Guarantees:
//   - Each of Event, Bookmark and Expired appends exactly one complete
//     line, ending in "\n", to the buffer; nothing reaches the client
//     until send is called.
//   - send writes out what the buffer holds, empties it and flushes (an
//     empty buffer is only flushed); it reports false once the client is
//     gone.
//   - Nothing is kept beyond the send function a watch owns.
package watchenc

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
)

// MsgTooOld is what etcd's watch says when compaction passes it.
const MsgTooOld = "The resourceVersion for the provided watch is too old."

// Start writes a watch's 200 headers and returns send, which writes out
// what buf holds, empties it and flushes; send reports false once the
// client is gone.
func Start(rw http.ResponseWriter, buf *bytes.Buffer) (send func() bool) {
	h := rw.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-cache, private")
	rw.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(rw)
	return func() bool {
		if buf.Len() == 0 {
			return rc.Flush() == nil
		}
		_, err := rw.Write(buf.Bytes())
		buf.Reset()
		return err == nil && rc.Flush() == nil
	}
}

// Event appends the event line of type typ holding object, encoded JSON.
func Event(buf *bytes.Buffer, typ string, object []byte) {
	buf.WriteString(`{"type":"`)
	buf.WriteString(typ)
	buf.WriteString(`","object":`)
	buf.Write(object)
	buf.WriteString("}\n")
}

// Bookmark appends a BOOKMARK carrying only kind, apiVersion and the
// resourceVersion rv (and, ending the initial events of a WatchList
// (initialEnd), the k8s.io/initial-events-end annotation).
func Bookmark(buf *bytes.Buffer, kind, apiVersion string, rv uint64, initialEnd bool) {
	fmt.Fprintf(buf, `{"type":"BOOKMARK","object":{"kind":%q,"apiVersion":%q,"metadata":{"resourceVersion":"%d"`, kind, apiVersion, rv)
	if initialEnd {
		buf.WriteString(`,"annotations":{"k8s.io/initial-events-end":"true"}`)
	}
	buf.WriteString("}}}\n")
}

// Expired appends an event of type ERROR holding a 410 Expired Status
// with msg.
func Expired(buf *bytes.Buffer, msg string) {
	st := apierr.Expired(msg).Status
	Event(buf, "ERROR", encode.Status(&st))
}
