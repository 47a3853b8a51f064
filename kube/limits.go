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

// errStepTooLarge is returned by a stepReader whose step is spent.
var errStepTooLarge = errors.New("step too large")

// stepReader is the reader under a json.Decoder that decodes an answer
// piece by piece (a token, an item): each piece may read at most step new
// bytes, so that the decoder's buffer, which holds one piece whole, stays
// within about twice step, and the answer as a whole at most total bytes.
// It keeps the first bytes of the current piece, to name an item that
// turns out too large.
type stepReader struct {
	r     io.Reader
	step  int   // bytes one piece may read
	total int64 // bytes the answer may still read; negative: no bound
	left  int   // bytes the current piece may still read
	start []byte
}

// startLen is how much of a piece's start a stepReader keeps.
const startLen = 1 << 10

// next starts a piece; buffered is what the decoder already holds of it.
func (s *stepReader) next(buffered io.Reader) {
	s.left = s.step
	s.start = s.start[:0]
	if buffered != nil {
		if cap(s.start) < startLen {
			s.start = make([]byte, 0, startLen)
		}
		n, _ := io.ReadFull(buffered, s.start[:startLen])
		s.start = s.start[:n]
	}
}

func (s *stepReader) Read(p []byte) (int, error) {
	if s.left <= 0 || s.total == 0 {
		return 0, errStepTooLarge
	}
	p = p[:min(len(p), s.left)]
	if s.total > 0 && int64(len(p)) > s.total {
		p = p[:s.total]
	}
	n, err := s.r.Read(p)
	s.left -= n
	if s.total > 0 {
		s.total -= int64(n)
	}
	if len(s.start) < startLen {
		s.start = append(s.start, p[:min(n, startLen-len(s.start))]...)
	}
	return n, err
}

// readLimited reads r whole when it holds at most limit bytes; otherwise
// it returns the first limit+1 bytes and false.
func readLimited(r io.Reader, limit int) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	return b, len(b) <= limit, err
}
