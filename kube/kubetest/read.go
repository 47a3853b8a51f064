// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/listopts"
)

// This file serves get and list: resourceVersion semantics, selectors,
// paging with continue tokens, and the list body.

const (
	msgListTooOld      = "The resourceVersion for the provided list is too old."
	msgContinueExpired = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
		"objects that were created, modified, or deleted between the time the first chunk was returned and now may " +
		"show up in the list."
)

// parseRV parses the resourceVersion parameter of a get or a watch; "" and
// "0" are 0. The real server's storage fails on a malformed one with an
// internal error (500, no reason).
func parseRV(s string) (uint64, *kube.StatusError) {
	if s == "" {
		return 0, nil
	}
	rv, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, apierr.New(http.StatusInternalServerError, "",
			fmt.Sprintf("resourceVersion: Invalid value: %q: %v", s, err), nil)
	}
	return rv, nil
}

// parseListRV parses the resourceVersion parameter of a list, which the
// real server checks before its storage sees it (400).
func parseListRV(s string) (uint64, *kube.StatusError) {
	rv, err := parseRV(s)
	if err != nil {
		return 0, apierr.BadRequest("invalid resource version: " + err.Status.Message)
	}
	return rv, nil
}

func (s *Server) serveGet(c *call) {
	want, err := parseRV(c.q.Get("resourceVersion"))
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	var cur uint64
	var rec *record
	s.withLock(func() { cur, rec = s.rv, c.col.objects[c.key()] })
	switch {
	case want > cur:
		apierr.Write(c.w, apierr.TooLargeRV(want, cur))
	case rec == nil:
		apierr.Write(c.w, apierr.NotFound(c.res.Group, c.res.Plural, c.info.Name))
	default:
		c.respond(http.StatusOK, rec.raw)
	}
}

// listOpts are the parsed query parameters of a list or watch.
type listOpts struct {
	rv, match, cont   string
	limit             int64
	filter            filter
	sendInitialEvents *bool
	bookmarks         bool
	timeoutSeconds    int64
}

// parseListOptions reads and validates list or watch parameters as
// ValidateListOptions does, after the WatchList defaulting of a legacy
// watch (resourceVersion "" or "0") to sendInitialEvents=true. Without
// the WatchList gate (watchList false: 1.33) a legacy watch is left as
// it is and a watch with sendInitialEvents is refused.
func (c *call) parseListOptions(watch, watchList bool) (*listOpts, *kube.StatusError) {
	q, bad := listopts.Parse(c.q)
	if bad != "" {
		return nil, apierr.BadRequest(bad)
	}
	o := &listOpts{rv: q.RV, match: q.Match, cont: q.Continue, limit: q.Limit, timeoutSeconds: q.TimeoutSeconds,
		bookmarks: q.Bookmarks, sendInitialEvents: q.SendInitialEvents}
	if err := c.parseSelectors(o); err != nil {
		return nil, err
	}
	check := listopts.Options{RV: o.rv, Match: o.match, Continue: o.cont, SendInitialEvents: o.sendInitialEvents}
	errs := listopts.Validate(&check, watch, watchList)
	o.match, o.sendInitialEvents = check.Match, check.SendInitialEvents
	if len(errs) > 0 {
		return nil, apierr.InvalidListOptions(errs)
	}
	return o, nil
}

// parseSelectors reads labelSelector and fieldSelector (listopts.Selectors);
// a field the kind does not support is refused as the real server refuses
// it.
func (c *call) parseSelectors(o *listOpts) *kube.StatusError {
	o.filter.namespace = c.info.Namespace
	if c.info.Resource == "namespaces" {
		o.filter.namespace = ""
	}
	labels, fields, bad := listopts.Selectors(c.q, c.info.Name, c.res.SupportsField, c.res.FieldNotSupported)
	if bad != "" {
		return apierr.BadRequest(bad)
	}
	o.filter.labels, o.filter.fields = labels, fields
	return nil
}

func decodeContinue(s string) (listopts.Token, *kube.StatusError) {
	t, invalid := listopts.DecodeContinue(s)
	if invalid != "" {
		return t, apierr.BadRequest(invalid)
	}
	return t, nil
}

// listPage is one page of a list, read under s.mu.
type listPage struct {
	items     []*record
	rv        uint64
	cont      string
	remaining *int64
	shard     *kube.ShardInfo
}

// readList selects a page of objects as the options ask. It holds s.mu.
func (s *Server) readList(c *call, o *listOpts) (*listPage, *kube.StatusError) {
	want, err := listVersion(o)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.rv
	if want > cur {
		return nil, apierr.TooLargeRV(want, cur)
	}
	page := &listPage{rv: cur, shard: shardInfo(o.filter.shard)}
	all, err := c.listFrom(o, want, cur, page)
	if err != nil {
		return nil, err
	}
	c.fillPage(o, page, all)
	return page, nil
}

// listVersion is the resourceVersion a list asks for, 0 for none; a
// continue token carries its own.
func listVersion(o *listOpts) (uint64, *kube.StatusError) {
	if o.rv == "" {
		return 0, nil
	}
	if o.cont != "" {
		return 0, apierr.BadRequest("specifying resource version is not allowed when using continue")
	}
	return parseListRV(o.rv)
}

// listFrom answers the collection's objects in key order, as they were at
// the version the list reads (a continue token's, or want for an Exact
// match, else now: cur), from the key a continue token starts after. It
// sets page.rv to that version. The caller holds s.mu.
func (c *call) listFrom(o *listOpts, want, cur uint64, page *listPage) ([]*record, *kube.StatusError) {
	var all []*record
	start := ""
	switch {
	case o.cont != "":
		tok, err := decodeContinue(o.cont)
		if err != nil {
			return nil, err
		}
		start = tok.Start
		if c.info.Namespace != "" && c.res.Namespaced {
			start = c.info.Namespace + "/" + start
		}
		if tok.RV > 0 {
			var ok bool
			if all, ok = c.col.at(uint64(tok.RV), cur); !ok {
				e := apierr.Expired(msgContinueExpired)
				e.Status.Continue = listopts.EncodeContinue(-1, tok.Start)
				return nil, e
			}
			page.rv = uint64(tok.RV)
		}
	case o.match == "Exact":
		var ok bool
		if all, ok = c.col.at(want, cur); !ok {
			return nil, apierr.Expired(msgListTooOld)
		}
		page.rv = want
	}
	if all == nil {
		all = make([]*record, 0, len(c.col.objects))
		for _, k := range c.col.keys() {
			all = append(all, c.col.objects[k])
		}
	}
	if start != "" {
		// all is sorted by key: skip what earlier pages returned.
		i, found := slices.BinarySearchFunc(all, start, func(r *record, k string) int { return strings.Compare(r.key, k) })
		if found {
			i++
		}
		all = all[i:]
	}
	return all, nil
}

// fillPage puts into page the objects of all that o selects, up to its
// limit. As the real server does, a full page says there is more when any
// object in scope (the namespace) follows, selected or not, and counts
// the remaining items (when no label or field selects) as every object in
// scope from the page's start on, less the page.
func (c *call) fillPage(o *listOpts, page *listPage, all []*record) {
	for i, r := range all {
		if !o.filter.matches(r) {
			continue
		}
		page.items = append(page.items, r)
		if o.limit <= 0 || int64(len(page.items)) < o.limit || inScope(all[i+1:], o.filter.namespace) == 0 {
			continue
		}
		next := r.key
		if c.info.Namespace != "" && c.res.Namespaced {
			next = r.name
		}
		page.cont = listopts.EncodeContinue(int64(page.rv), next)
		if o.filter.empty() && (o.filter.shard.Empty() || o.filter.shardCounted) {
			n := inScope(all, o.filter.namespace) - o.limit
			page.remaining = &n
		}
		return
	}
}

// inScope counts the records of rs in namespace ns, all of them for "".
func inScope(rs []*record, ns string) (n int64) {
	for _, r := range rs {
		if ns == "" || r.namespace == ns {
			n++
		}
	}
	return n
}

func (s *Server) serveList(c *call) {
	o, err := c.parseListOptions(false, true)
	if err == nil {
		err = s.parseShardSelector(c, o)
	}
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	page, err := s.readList(c, o)
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	c.writeList(page)
}

// encodeList renders a list body: "XList" (or PartialObjectMetadataList)
// with ListMeta and items; items of built-in kinds carry no kind and
// apiVersion, as typed lists are served.
func (c *call) encodeList(page *listPage) []byte {
	var b bytes.Buffer
	size := 256
	for _, r := range page.items {
		size += len(r.raw) + 1
	}
	b.Grow(size)
	kind, av := c.res.ListKind, c.res.APIVersion()
	if kind == "" {
		kind = c.res.Kind + "List"
	}
	if c.partial {
		kind, av = "PartialObjectMetadataList", "meta.k8s.io/v1"
	}
	meta, _ := json.Marshal(kube.ListMeta{ResourceVersion: formatRV(page.rv), Continue: page.cont,
		RemainingItemCount: page.remaining, ShardInfo: page.shard})
	fmt.Fprintf(&b, `{"kind":%q,"apiVersion":%q,"metadata":%s,"items":[`, kind, av, meta)
	for i, r := range page.items {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case c.partial || c.res.CRD != "":
			b.Write(c.render(r.raw))
		case c.res.FromStored != nil:
			b.WriteByte('{')
			raw, tm := encode.ObjectTM(c.res.fromStored(mustDecode(r.raw)))
			b.Write(raw[tm:])
		default:
			b.WriteByte('{')
			b.Write(r.raw[r.tm:])
		}
	}
	b.WriteString("]}")
	return b.Bytes()
}
