// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ListEach reads one list request's answer (one page when opts.Limit is
// set) of the objects of kind gvk and hands each item to each as soon as
// it is decoded, into a new object from newItem, stamped with gvk. It
// returns the list's metadata: the resourceVersion and, for a page, the
// continue token.
//
// Unlike [Client.List] it never holds the answer: memory is one item's
// JSON and the decoder's buffer, whatever the page size. jsonBytes is the
// size of the item's JSON. An error from each ends the read and is
// returned as is. A request that fails before its answer starts (a
// dropped connection, a 429) is retried as every read is; an answer cut
// midway is not, and the items handed out before the cut stay handed out:
// ask for the page again.
func (c *Client) ListEach(ctx context.Context, gvk GroupVersionKind, opts ListOptions,
	newItem func() Object, each func(item Object, jsonBytes int) error) (ListMeta, error) {
	meta, err := c.listEach(ctx, gvk, opts, newItem, each)
	if fe, ok := err.(errFromEach); ok {
		return meta, fe.err
	}
	if err != nil {
		return meta, fmt.Errorf("list %s: %w", gvk.Kind, err)
	}
	return meta, nil
}

// errFromEach carries an error of the caller's each out of the decoding
// loop, so that ListEach returns it unwrapped.
type errFromEach struct{ err error }

func (e errFromEach) Error() string { return e.err.Error() }

func (c *Client) listEach(ctx context.Context, gvk GroupVersionKind, opts ListOptions,
	newItem func() Object, each func(Object, int) error) (ListMeta, error) {
	var meta ListMeta
	r, err := c.listRequest(ctx, gvk, opts, opts.MetadataOnly)
	if err != nil {
		return meta, err
	}
	ctx, cancel := c.requestContext(ctx)
	defer cancel()
	resp, err := c.do(ctx, r)
	if err != nil {
		return meta, err
	}
	defer resp.Body.Close()
	d := newStreamDecoder(io.LimitReader(resp.Body, maxResponseBody))
	if err := expectDelim(d.dec, '{'); err != nil {
		return meta, err
	}
	sawItems := false
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return meta, fmt.Errorf("decode response: %w", err)
		}
		// Member names match as json.Unmarshal matches them to a
		// List's fields (case-insensitively), so that ListEach reads
		// what List reads. A second items array cannot be read as
		// json.Unmarshal does (the last one wins): it is refused.
		name, _ := tok.(string)
		switch {
		case strings.EqualFold(name, "metadata"):
			err = d.dec.Decode(&meta)
		case strings.EqualFold(name, "items"):
			if sawItems {
				return meta, fmt.Errorf("decode response: field %v: items given twice", tok)
			}
			sawItems = true
			err = decodeItems(d, gvk, newItem, each)
		default: // apiVersion, kind
			var skip json.RawMessage
			err = d.dec.Decode(&skip)
		}
		if _, ok := err.(errFromEach); ok {
			return meta, err
		}
		if err != nil {
			return meta, fmt.Errorf("decode response: field %v: %w", tok, err)
		}
	}
	if err := expectDelim(d.dec, '}'); err != nil {
		return meta, err
	}
	if tok, err := d.dec.Token(); err != io.EOF {
		return meta, fmt.Errorf("decode response: %v after the list (%v)", tok, err)
	}
	return meta, nil
}

// decodeItems decodes the items array (or null) one item at a time.
func decodeItems(d *objectDecoder, gvk GroupVersionKind, newItem func() Object, each func(Object, int) error) error {
	tok, err := d.dec.Token()
	if err != nil || tok == nil {
		return err
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("items is %v, not an array", tok)
	}
	for n := 0; d.dec.More(); n++ {
		obj := newItem()
		size, err := d.object(obj)
		if err != nil {
			return fmt.Errorf("item %d: %w", n, err)
		}
		if s, ok := obj.(interface{ SetGroupVersionKind(GroupVersionKind) }); ok {
			s.SetGroupVersionKind(gvk)
		}
		if err := each(obj, size); err != nil {
			return errFromEach{err}
		}
	}
	_, err = d.dec.Token() // the closing bracket
	return err
}

// expectDelim reads delim, the next token of dec.
func expectDelim(dec *json.Decoder, delim json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("decode response: %w", err)
	}
	if tok != delim {
		return fmt.Errorf("decode response: got %v, want %v", tok, delim)
	}
	return nil
}
