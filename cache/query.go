// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"errors"
	"github.com/kubeloop/kubeloop/internal/errs"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
)

// query is a list request compiled against a store's indexes:
// kube.ListOptions as the cache can answer them.
type query struct {
	// namespace limits the objects when allNamespaces is false.
	namespace     string
	allNamespaces bool
	// name, when hasName, is the only name that matches
	// (metadata.name=...).
	name    string
	hasName bool
	labels  kube.Selector
	// lookup, when set, is the index equality that picks the candidates;
	// indexed are further index equalities, checked on each candidate.
	lookup  *indexReq
	indexed []indexReq
	// fields are the metadata.name and metadata.namespace requirements
	// checked on each candidate.
	fields kube.FieldSelector
	limit  int
	// none is set when the options contradict each other.
	none bool
}

type indexReq struct {
	name, value string
	fn          IndexFunc
}

// compile turns opts into a query. Field selector terms are answered by
// indexes: "field=value" needs an index registered under that field's
// name (metadata.name and metadata.namespace need none); "!=" is only
// supported for metadata.name and metadata.namespace. Limit caps the
// number of objects returned; Continue is refused (a cache has no pages);
// resourceVersion and the watch options are ignored.
func (s *store) compile(opts kube.ListOptions) (query, error) {
	q := query{namespace: opts.Namespace, allNamespaces: opts.Namespace == "", labels: opts.LabelSelector, limit: int(opts.Limit)}
	if opts.Continue != "" {
		return q, errors.New("a cache list has no pages: Continue is not supported")
	}
	if opts.Limit < 0 {
		return q, errs.Errorf("limit %d is negative", opts.Limit)
	}
	var fields []kube.FieldRequirement
	for _, r := range opts.FieldSelector.Requirements() {
		switch {
		case r.Field == "metadata.namespace" && r.Operator == kube.OpEquals:
			if !q.allNamespaces && q.namespace != r.Value {
				q.none = true
			}
			q.namespace, q.allNamespaces = r.Value, false
		case r.Field == "metadata.name" && r.Operator == kube.OpEquals:
			if q.hasName && q.name != r.Value {
				q.none = true
			}
			q.name, q.hasName = r.Value, true
		case r.Field == "metadata.name" || r.Field == "metadata.namespace":
			fields = append(fields, r)
		case r.Operator != kube.OpEquals:
			return q, errs.Errorf("field selector %q: only metadata.name and metadata.namespace support %q in a cache", r.String(), r.Operator)
		default:
			fn := s.indexFunc(r.Field)
			if fn == nil {
				return q, errs.Errorf("field selector %q: no index for field %q: register one with IndexField", r.String(), r.Field)
			}
			q.indexed = append(q.indexed, indexReq{name: r.Field, value: r.Value, fn: fn})
		}
	}
	if len(q.indexed) > 0 && !q.hasName {
		q.lookup, q.indexed = &q.indexed[0], q.indexed[1:]
	}
	q.fields = kube.FieldSelector{}.Add(fields...)
	return q, nil
}

func (s *store) indexFunc(name string) IndexFunc {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.indexers[name]
}

// run calls fn for each object the query matches, in no particular order.
// In a store of decoded objects fn runs under the store's read lock (it
// must be quick and must not write the store); a compact store collects
// the candidates under the lock and decodes them after. The cost is
// O(candidates): one object for a name in a namespace, the objects filed
// under the value for an index lookup, the namespace's objects for a
// namespace, else every object; in a compact store, a decode each.
func (s *store) run(q query, fn func(kube.Object)) {
	if q.none {
		return
	}
	n := 0
	visit := func(obj kube.Object) bool {
		if !q.matches(obj) {
			return true
		}
		fn(obj)
		n++
		return q.limit == 0 || n < q.limit
	}
	if s.codec == nil {
		s.candidates(q, func(v any) bool { return visit(v.(kube.Object)) })
		return
	}
	var found []any
	s.candidates(q, func(v any) bool { found = append(found, v); return true })
	for _, v := range found {
		if !visit(s.codec.load(v)) {
			return
		}
	}
}

// candidates calls fn, under the read lock, for the stored value of each
// object q may match, until fn returns false.
func (s *store) candidates(q query, fn func(v any) bool) {
	switch {
	case q.hasName && !q.allNamespaces:
		s.mu.RLock()
		e, ok := s.cur.get(kube.Key{Namespace: q.namespace, Name: q.name})
		s.mu.RUnlock()
		if ok {
			fn(e.v)
		}
	case q.lookup != nil:
		// The index exists: compile found it, and indexes are never
		// removed.
		_ = s.byIndex(q.lookup.name, q.lookup.value, fn)
	default:
		s.each(q.namespace, q.allNamespaces, fn)
	}
}

// matches checks every requirement of q but the lookup's on obj.
func (q *query) matches(obj kube.Object) bool {
	m := obj.GetObjectMeta()
	if !q.allNamespaces && m.Namespace != q.namespace || q.hasName && m.Name != q.name {
		return false
	}
	if !q.labels.Matches(m.Labels) {
		return false
	}
	for _, r := range q.indexed {
		if !slices.Contains(r.fn(obj), r.value) {
			return false
		}
	}
	if !q.fields.Empty() && !q.fields.Matches(map[string]string{"metadata.name": m.Name, "metadata.namespace": m.Namespace}) {
		return false
	}
	return true
}
