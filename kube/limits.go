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

// DefaultMaxListSize bounds the bytes the client reads of one list's
// answer: a [Client.List], one [Client.ListEach] request (one page when
// ListOptions.Limit is set), and the initial events of a WatchList watch
// (SendInitialEvents), up to the bookmark that ends them (see
// [ClientOptions.MaxListSize]). Whoever reads a list keeps what it reads
// (List its items, an informer the state it builds), about 1.8 bytes of
// heap per byte of JSON for an informer of ConfigMaps: a server that
// sends a list without end must not take the whole memory of the
// program. 1 GiB is about a million objects of 1 KiB.
const DefaultMaxListSize = 1 << 30

// ErrListTooLarge is wrapped by the error of a list (or the initial events
// of a WatchList) whose answer passed the client's bound
// ([ClientOptions.MaxListSize]); the error names the kind and the bytes
// read. The read stops there.
var ErrListTooLarge = errors.New("list too large")

// maxDiscoveryBody bounds a discovery document, which describes every
// resource of the server (about 1 KiB each).
const maxDiscoveryBody = 64 << 20

// maxList is the client's bound on one list's answer.
func (c *Client) maxList() int64 {
	if c.maxListSize > 0 {
		return c.maxListSize
	}
	return DefaultMaxListSize
}

// listTooLarge is the error for a list's answer that passed limit bytes
// after read bytes; what says which answer ("the answer", "the initial
// events").
func listTooLarge(what string, limit, read int64) error {
	return fmt.Errorf("%w: %s passed %d bytes (read %d), the most the client reads of a list (ClientOptions.MaxListSize)",
		ErrListTooLarge, what, limit, read)
}

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
