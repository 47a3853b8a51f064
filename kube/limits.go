// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"errors"
	"fmt"
	"io"
)

// DefaultMaxObjectSize bounds the JSON of one object the client reads:
// the answer of a Get or a write, one item of a list, the object of one
// watch event (see [ClientOptions.MaxObjectSize]). kube-apiserver cannot
// store an object larger than etcd's request limit, 1.5 MiB unless etcd
// is given another --max-request-bytes; its JSON is larger than what is
// stored when it holds binary data (base64, 4/3 as large) or characters
// JSON escapes ("\u003c" for "<", six bytes for one), so an object etcd
// accepts may take up to 9 MiB of JSON. 16 MiB leaves room over that.
const DefaultMaxObjectSize = 16 << 20

// ErrObjectTooLarge is wrapped by the error of a read that met an object
// larger than the client's limit ([ClientOptions.MaxObjectSize]); the
// error names the object, or the request when the object's name could not
// be read. The read stops there: what was left of the answer is not read.
var ErrObjectTooLarge = errors.New("object too large")

// Bounds on answers that are not one object.
const (
	// maxListBody bounds the whole answer of [Client.List], which keeps
	// every item: a larger list is read in pages or with ListEach.
	maxListBody = 1 << 30
	// maxDiscoveryBody bounds a discovery document, which describes every
	// resource of the server (about 1 KiB each).
	maxDiscoveryBody = 64 << 20
)

// maxObject is the client's limit on one object.
func (c *Client) maxObject() int {
	if c.maxObjectSize > 0 {
		return c.maxObjectSize
	}
	return DefaultMaxObjectSize
}

// tooLarge is the error for an object of more than limit bytes; what
// names it ("item 3 (ns/name)", "ns/name") or the request, unless the
// caller's message does ("get ConfigMap ns/name: ...").
func tooLarge(what string, limit int) error {
	err := fmt.Errorf("%w: more than %d bytes of JSON, the most the client reads for one object (ClientOptions.MaxObjectSize)",
		ErrObjectTooLarge, limit)
	if what != "" {
		err = fmt.Errorf("%s: %w", what, err)
	}
	return err
}

// readLimited reads r whole when it holds at most limit bytes; otherwise
// it returns the first limit+1 bytes and false.
func readLimited(r io.Reader, limit int) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	return b, len(b) <= limit, err
}
