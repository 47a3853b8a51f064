// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/openapi"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
)

// This file gives internal/openapi, which serves /openapi/v2 and
// /openapi/v3, the documents of what the server serves now: the built-in
// kinds' captured documents limited to the served resources, and the
// served versions of the stored CRDs.

// builtinOpenAPI holds the v3 documents of the built-in kinds, limited
// to what the newest minor serves; computed once per process.
var builtinOpenAPI = sync.OnceValue(func() map[string]openapi.Doc {
	v3, _ := builtinOpenAPIFor(newRegistry())
	return v3
})

// builtinOpenAPIV2 is /openapi/v2 of the built-in kinds, limited to what
// the newest minor serves; computed once per process.
var builtinOpenAPIV2 = sync.OnceValue(func() obj {
	return openapi.FilterPaths(schema.OpenAPI().V2, servedBy(newRegistry()))
})

// builtinOpenAPIFor returns the v3 documents (by index path) and the v2
// document of the built-in kinds, limited to what reg serves.
func builtinOpenAPIFor(reg *registry) (v3 map[string]openapi.Doc, v2 obj) {
	data := schema.OpenAPI()
	served := servedBy(reg)
	v3 = map[string]openapi.Doc{}
	for p, doc := range data.V3 {
		v3[p] = openapi.NewDoc(openapi.FilterPaths(doc, served))
	}
	return v3, openapi.FilterPaths(data.V2, served)
}

// builtinOpenAPIV3Locked returns the built-in v3 documents of the minor
// s acts as. The caller holds s.mu.
func (s *Server) builtinOpenAPIV3Locked() map[string]openapi.Doc {
	if s.minorOpenAPI != nil {
		v3, _ := s.minorOpenAPI()
		return v3
	}
	return builtinOpenAPI()
}

// builtinOpenAPIV2Locked returns the built-in v2 document of the minor s
// acts as. The caller holds s.mu.
func (s *Server) builtinOpenAPIV2Locked() obj {
	if s.minorOpenAPI != nil {
		_, v2 := s.minorOpenAPI()
		return v2
	}
	return builtinOpenAPIV2()
}

// servedBy reports the resources reg serves, and of their subresources
// the status of those that have one.
func servedBy(reg *registry) openapi.Served {
	return func(group, version, plural, sub string) bool {
		res := reg.Lookup(group, version, plural)
		return res != nil && (sub == "" || (sub == "status" && res.Status))
	}
}

// serveOpenAPI answers GET /openapi/v2, /openapi/v3 and /openapi/v3/...
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, p string) {
	v2 := func() (d openapi.Doc) {
		s.withLock(func() {
			d = s.openAPI.V2(s.crdStateLocked(), func() openapi.Doc {
				return openapi.NewDoc(openapi.MergeV2(s.builtinOpenAPIV2Locked(), s.crdKindsByGVLocked()))
			})
		})
		return d
	}
	v3 := func() (docs map[string]openapi.Doc) {
		s.withLock(func() {
			docs = s.openAPI.V3(s.crdStateLocked(), func() map[string]openapi.Doc {
				servesGroup := func(group string) bool { return len(s.reg.Versions(group)) > 0 }
				return openapi.V3Docs(s.builtinOpenAPIV3Locked(), servesGroup, s.crdKindsByGVLocked())
			})
		})
		return docs
	}
	openapi.Serve(w, r, p, v2, v3)
}

// crdStateLocked names the state of the served CRDs the documents are
// built from: each served CRD version's CRD and its resourceVersion. The
// caller holds s.mu.
func (s *Server) crdStateLocked() string {
	crds := s.cols["apiextensions.k8s.io/customresourcedefinitions"]
	var b strings.Builder
	for _, gv := range slices.Sorted(maps.Keys(s.reg.ByGV)) {
		for _, r := range s.reg.ByGV[gv] {
			if rec := crds.objects[r.CRD]; r.CRD != "" && rec != nil {
				fmt.Fprintf(&b, "%s %s %d\n", gv, r.CRD, rec.rv)
			}
		}
	}
	return b.String()
}

// crdKindsByGVLocked returns the served CRD versions by "group/version".
// The caller holds s.mu.
func (s *Server) crdKindsByGVLocked() map[string][]openapi.CRDKind {
	crds := s.cols["apiextensions.k8s.io/customresourcedefinitions"]
	out := map[string][]openapi.CRDKind{}
	for gv, list := range s.reg.ByGV {
		for _, r := range list {
			rec := crds.objects[r.CRD]
			if r.CRD == "" || rec == nil {
				continue
			}
			k := openapi.KindOf(&r.Resource, mustDecode(rec.raw))
			out[gv] = append(out[gv], k)
		}
	}
	for _, kinds := range out {
		slices.SortFunc(kinds, func(a, b openapi.CRDKind) int { return strings.Compare(a.Names.Kind, b.Names.Kind) })
	}
	return out
}
