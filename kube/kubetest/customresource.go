// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
)

// This file applies the schema of a kind to the objects the server
// stores: writes are fitted and validated, and a CRD change refits what is
// stored.

// coerceObject fits an object about to be written to its kind's schema:
// a built-in kind loses its unknown fields (its Go type would drop them);
// a custom resource is pruned and defaulted.
func coerceObject(res *resource, o obj) {
	switch {
	case res.Schema == nil:
	case res.CRD == "":
		schema.Prune(res.Schema, o, false, true)
	default:
		schema.CoerceCustomResource(res.Schema, o, false)
	}
}

// validateCustomResource validates a custom resource about to be stored
// (sub "status": its status only) against its kind's schema, with
// ratcheting against old on updates (old nil on create). Objects of
// built-in kinds and schemaless ones pass. oldWording words the errors
// as 1.33 (schema.AsOldest).
func validateCustomResource(res *resource, sub string, o, old obj, oldWording bool) []fielderr.Error {
	if res.CRD == "" || res.Schema == nil {
		return nil
	}
	errs := schema.ValidateCustomResource(res.Schema, sub, res.Status, o, old)
	if oldWording {
		return schema.AsOldest(errs)
	}
	return errs
}

// recoerceStoredLocked fits the stored objects of a custom resource to
// the schema of its storage version after a CRD change, as the real
// server's reads from storage prune and default them: an object stored
// before a default was added reads with it. The objects keep their
// resourceVersion and no watch event is sent (the real server's storage
// does not change either). Cost: O(objects) when the CRD changes.
func (s *Server) recoerceStoredLocked(res *resource) {
	if res == nil || res.Schema == nil {
		return
	}
	col := s.cols[res.colKey()]
	if col == nil {
		return
	}
	for k, rec := range col.objects {
		o := mustDecode(rec.raw)
		schema.CoerceCustomResource(res.Schema, o, false)
		if raw := encode.Object(o); !bytes.Equal(raw, rec.raw) {
			col.objects[k] = makeRecord(res, o)
		}
	}
}
