// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
// JSON and the decoder's buffer, whatever the page size; an item larger
// than [ClientOptions.MaxObjectSize] ends the read with an error that
// wraps [ErrObjectTooLarge]. jsonBytes is the size of the item's JSON. An
// error from each ends the read and is returned as is. A request that
// fails before its answer starts (a dropped connection, a 429) is retried
// as every read is; an answer cut midway is not, and the items handed out
// before the cut stay handed out: ask for the page again.
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
	err = c.readList(ctx, r, -1, listDecoding{meta: &meta, item: func(d *objectDecoder) error {
		obj := newItem()
		size, err := d.object(obj)
		if err != nil {
			return err
		}
		if s, ok := obj.(interface{ SetGroupVersionKind(GroupVersionKind) }); ok {
			s.SetGroupVersionKind(gvk)
		}
		if err := each(obj, size); err != nil {
			return errFromEach{err}
		}
		return nil
	}})
	return meta, err
}

// listDecoding says where the parts of a list answer go.
type listDecoding struct {
	typeMeta *TypeMeta // apiVersion and kind; nil skips them, whatever their type
	meta     *ListMeta
	// items is called when the items array starts (not for null).
	items func()
	// item decodes the next item, the next value of d.
	item func(d *objectDecoder) error
}

// readList sends the list request r and decodes its answer as d says,
// within the per-request timeout. Each piece of the answer (a field, an
// item) may take at most the client's object limit; the whole answer at
// most total bytes (negative: no bound).
func (c *Client) readList(ctx context.Context, r *request, total int64, d listDecoding) error {
	ctx, cancel := c.requestContext(ctx)
	defer cancel()
	resp, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sr := &stepReader{r: resp.Body, step: c.maxObject(), total: total}
	item, err := decodeList(newStreamDecoder(sr, c.jd), sr, d)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errStepTooLarge) && sr.total == 0:
		return fmt.Errorf("the list is larger than %d bytes: read it in pages (ListOptions.Limit) or with ListEach", total)
	case errors.Is(err, errStepTooLarge) && item >= 0:
		return tooLarge(itemName(item, sr.start), sr.step)
	case errors.Is(err, errStepTooLarge):
		return tooLarge(r.path, sr.step)
	}
	if _, ok := err.(errFromEach); ok {
		return err
	}
	if item >= 0 {
		return fmt.Errorf("decode response: %s: %w", itemName(item, sr.start), err)
	}
	return fmt.Errorf("decode response: %w", err)
}

// itemName names item n of a list in an error: "item 3 (ns/name)", with
// the name when the item's start holds it.
func itemName(n int, start []byte) string {
	if name := nameIn(start); name != "" {
		return fmt.Sprintf("item %d (%s)", n, name)
	}
	return fmt.Sprintf("item %d", n)
}

// decodeList decodes a list answer from od, which reads from sr, piece
// by piece. It returns the index of the item it was decoding when it
// failed, -1 when it was not in an item. Its errors quote no value (see
// jsonError); those of d.item pass as they are.
func decodeList(od *objectDecoder, sr *stepReader, d listDecoding) (item int, err error) {
	item, err = decodeListParts(od, sr, d)
	if _, ok := err.(errFromEach); !ok && err != nil {
		err = jsonError(err)
	}
	return item, err
}

func decodeListParts(od *objectDecoder, sr *stepReader, d listDecoding) (item int, err error) {
	dec := od.dec
	sr.next(nil)
	if err := expectDelim(dec, '{'); err != nil {
		return -1, err
	}
	sawItems := false
	for {
		sr.next(nil)
		if !dec.More() {
			break
		}
		tok, err := dec.Token()
		if err != nil {
			return -1, err
		}
		sr.next(nil)
		// Member names match as json.Unmarshal matches them to a List's
		// fields (case-insensitively), so that ListEach and List read
		// what json.Unmarshal would. A second items array cannot be read
		// as json.Unmarshal does (the last one wins): it is refused.
		name, _ := tok.(string)
		switch {
		case strings.EqualFold(name, "metadata"):
			err = dec.Decode(d.meta)
		case d.typeMeta != nil && strings.EqualFold(name, "apiVersion"):
			err = dec.Decode(&d.typeMeta.APIVersion)
		case d.typeMeta != nil && strings.EqualFold(name, "kind"):
			err = dec.Decode(&d.typeMeta.Kind)
		case strings.EqualFold(name, "items"):
			if sawItems {
				return -1, fmt.Errorf("field %v: items given twice", tok)
			}
			sawItems = true
			if n, err := decodeItems(od, sr, d); err != nil {
				return n, err
			}
			dec = od.dec // decodeItems hands the rest to a new decoder
		default: // apiVersion and kind for ListEach, whatever their type
			err = skipValue(dec)
		}
		if err != nil {
			return -1, fmt.Errorf("field %v: %w", tok, jsonError(err))
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return -1, err
	}
	if tok, err := dec.Token(); err != io.EOF {
		return -1, fmt.Errorf("%s after the list", tokenKind(tok, err))
	}
	return -1, nil
}

// decodeItems decodes the items array (or null) one item at a time.
func decodeItems(od *objectDecoder, sr *stepReader, d listDecoding) (int, error) {
	dec := od.dec
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return -1, err
	}
	if tok != json.Delim('[') {
		return -1, fmt.Errorf("items is %s, not an array", tokenKind(tok, nil))
	}
	if d.items != nil {
		d.items()
	}
	// The items are read by an itemReader (each item's end found by
	// jsondec.Extent, then the item decoded in one pass), the rest of
	// the list by a new json.Decoder.
	ir := &itemReader{r: io.MultiReader(dec.Buffered(), sr), jd: od.jd}
	od.items = ir
	defer func() { od.items = nil }()
	for n := 0; ; n++ {
		sr.next(nil)
		more, err := ir.more(n)
		if err != nil {
			return -1, err
		}
		if !more {
			break
		}
		sr.next(bytes.NewReader(ir.buf[ir.off:]))
		if err := d.item(od); err != nil {
			return n, err
		}
	}
	// The new decoder reads the rest of the list's object: it is given
	// the start of an object with one member first, which it reads now,
	// so that it is where the old one would be.
	od.dec = json.NewDecoder(io.MultiReader(strings.NewReader(`{"":0`), bytes.NewReader(ir.buf[ir.off:]), sr))
	for range 3 {
		if _, err := od.dec.Token(); err != nil {
			return -1, err
		}
	}
	return -1, nil
}

// expectDelim reads delim, the next token of dec.
func expectDelim(dec *json.Decoder, delim json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != delim {
		return fmt.Errorf("got %s, want %v", tokenKind(tok, nil), delim)
	}
	return nil
}
