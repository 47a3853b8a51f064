// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"errors"
	"fmt"
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
// wraps [ErrObjectTooLarge]. What each keeps is the caller's, so the
// answer as a whole is bounded as List's is: an answer that passes
// [ClientOptions.MaxListSize] ends the read with an error that wraps
// [ErrListTooLarge] and names the kind and the bytes read ("list
// ConfigMap: list too large: the answer passed 1073741824 bytes (read
// 1073741824), ..."); ask for pages (opts.Limit) to read more in all. jsonBytes is the size of the item's JSON. An
// error from each ends the read and is returned as is. A request that
// fails before its answer starts (a dropped connection, a 429) is retried
// as every read is; an answer cut midway is not, and the items handed out
// before the cut stay handed out: ask for the page again.
func (c *Client) ListEach(ctx context.Context, gvk GroupVersionKind, opts ListOptions,
	newItem func() Object, each func(item Object, jsonBytes int) error) (ListMeta, error) {
	if newItem == nil || each == nil {
		return ListMeta{}, errNilArgument
	}
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
	jd := c.decoder(opts)
	err = c.readList(ctx, r, c.maxList(), listDecoding{meta: &meta, item: func(raw []byte) error {
		obj := newItem()
		if err := unmarshal(jd, raw, obj); err != nil {
			return err
		}
		if s, ok := obj.(interface{ SetGroupVersionKind(GroupVersionKind) }); ok {
			s.SetGroupVersionKind(gvk)
		}
		if err := each(obj, len(raw)); err != nil {
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
	// item decodes the next item, whose JSON raw holds (valid during the
	// call).
	item func(raw []byte) error
}

// readList sends the list request r and decodes its answer as d says,
// within the per-request timeout. Each piece of the answer (a field, an
// item) may take at most the client's object limit; the whole answer at
// most total bytes.
func (c *Client) readList(ctx context.Context, r *request, total int64, d listDecoding) error {
	ctx, cancel := c.requestContext(ctx, r)
	defer cancel()
	resp, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	lr := &listReader{r: resp.Body, jd: c.dec.all, step: c.maxObject(), total: total}
	item, err := lr.list(d)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrListTooLarge):
		return listTooLarge("the answer", total, lr.read)
	case errors.Is(err, errStepTooLarge) && item >= 0:
		return tooLarge(itemName(item, lr.start()), lr.step)
	case errors.Is(err, errStepTooLarge):
		return tooLarge(r.path, lr.step)
	}
	if _, ok := err.(errFromEach); ok {
		return err
	}
	if item >= 0 {
		return fmt.Errorf("decode response: %s: %w", itemName(item, lr.start()), err)
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
