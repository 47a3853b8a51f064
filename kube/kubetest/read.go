// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/listopts"
)

// This file serves get and list: resourceVersion semantics, selectors,
// paging with continue tokens, and the list body.

func (s *Server) serveGet(c *call) {
	want, err := listopts.ParseRV(c.q.Get("resourceVersion"))
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
	listopts.Query
	filter filter
}

// parseListOptions reads and validates list or watch parameters
// (listopts.Read): a legacy watch defaults to sendInitialEvents=true
// unless watchList is false (1.33), when a watch with sendInitialEvents
// is refused. A field the kind does not support is refused as the real
// server refuses it.
func (c *call) parseListOptions(watch, watchList bool) (*listOpts, *kube.StatusError) {
	q, labels, fields, err := listopts.Read(c.q, c.info.Name, c.res.SupportsField, c.res.FieldNotSupported, watch, watchList)
	if err != nil {
		return nil, err
	}
	o := &listOpts{Query: q, filter: filter{namespace: c.info.Namespace, labels: labels, fields: fields}}
	if c.info.Resource == "namespaces" {
		o.filter.namespace = ""
	}
	return o, nil
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
	want, err := o.Version()
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

// listFrom answers the collection's objects in key order, as they were at
// the version the list reads (a continue token's, or want for an Exact
// match, else now: cur), from the key a continue token starts after. It
// sets page.rv to that version. The caller holds s.mu.
func (c *call) listFrom(o *listOpts, want, cur uint64, page *listPage) ([]*record, *kube.StatusError) {
	var all []*record
	start := ""
	switch {
	case o.Continue != "":
		tok, err := listopts.ReadContinue(o.Continue)
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
				return nil, listopts.ContinueExpired(tok.Start)
			}
			page.rv = uint64(tok.RV)
		}
	case o.Match == "Exact":
		var ok bool
		if all, ok = c.col.at(want, cur); !ok {
			return nil, apierr.Expired(listopts.MsgListTooOld)
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
		if o.Limit <= 0 || int64(len(page.items)) < o.Limit || inScope(all[i+1:], o.filter.namespace) == 0 {
			continue
		}
		next := r.key
		if c.info.Namespace != "" && c.res.Namespaced {
			next = r.name
		}
		page.cont = listopts.EncodeContinue(int64(page.rv), next)
		if o.filter.empty() && (o.filter.shard.Empty() || o.filter.shardCounted) {
			n := inScope(all, o.filter.namespace) - o.Limit
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
