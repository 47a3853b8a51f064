// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/shardexpr"
)

// This file serves ?shardSelector= as kube-apiserver 1.36 does with the
// ShardedListAndWatch feature gate on (Options.DisableShardedListAndWatch
// turns it off, and the parameter is then ignored as a server without the
// gate ignores it, as is a server acting as a minor before 1.36). The selector is a CEL expression: shardRange(field,
// 'start', 'end') calls joined by ||, parsed but never evaluated. The real
// server runs the CEL parser and then walks its syntax tree;
// internal/shardexpr parses the same grammar into the same tree shape and
// refuses what the real walk refuses, with its messages. A malformed
// selector answers 500 InternalError (the real server wraps the parser's
// error as a plain error, not a Status), for list and watch alike.

// parseShardSelector reads ?shardSelector= into o.filter.shard, after the
// other list options are valid and before storage is read, where the real
// server parses it. An empty parameter is no selector; blanks are a
// malformed one.
func (s *Server) parseShardSelector(c *call, o *listOpts) *kube.StatusError {
	v := c.q.Get("shardSelector")
	if v == "" || s.opts.DisableShardedListAndWatch || !s.facts.ShardedListAndWatch {
		return nil
	}
	sel, err := shardexpr.Parse(v)
	if err != nil {
		return apierr.New(http.StatusInternalServerError, "", "invalid shard selector: "+err.Error(), nil)
	}
	o.filter.shard, o.filter.shardCounted = sel, s.facts.ShardPagesCount
	return nil
}

// shardMatches reports whether r's hash of sel's field falls in sel.
func shardMatches(sel kube.ShardSelector, r *record) bool {
	if sel.Empty() {
		return true
	}
	v := r.uid
	if sel.Field == kube.ShardByNamespace {
		v = r.namespace
	}
	return sel.ContainsHash(kube.ShardHash(v))
}

// shardInfo is metadata.shardInfo of a list filtered by sel: the selector
// as the server writes it back, which is how kube writes one.
func shardInfo(sel kube.ShardSelector) *kube.ShardInfo {
	if sel.Empty() {
		return nil
	}
	return &kube.ShardInfo{Selector: sel.String()}
}
