// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fieldmanager"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/patch"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/requestinfo"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/strategy"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file is server-side apply, as the real server's field manager does
// it with the kind's schema (internal/fieldmanager):
//   - the configuration is merged into the object: maps key by key, set
//     and map lists entry by entry, atomic lists and maps replaced;
//   - the manager's Apply entry becomes exactly the configuration's
//     fields; the fields it applied before and omits now are removed
//     unless another manager owns them (or what is under them);
//   - a field of another manager that the merge adds or changes is a
//     conflict (409, naming the manager and the field: .data.x,
//     .status.conditions[type="Ready"]) unless force=true, which takes it
//     from them; fields the merge removes leave every entry;
//   - an object without managedFields first gets them as if a manager
//     "before-first-apply" had made it by an Update;
//   - the manager "kubectl" may take fields from others that its
//     kubectl.kubernetes.io/last-applied-configuration annotation says it
//     set and that still have that value (the client-side to server-side
//     apply migration), and keeps that annotation, when the object has
//     one, equal to the configuration it applied.

func (s *Server) serveApply(c *call, body []byte) {
	if c.q.Get("fieldManager") == "" {
		apierr.Write(c.w, apierr.Invalid("meta.k8s.io", "PatchOptions", "", []fielderr.Error{{
			Type: "FieldValueRequired", Field: "fieldManager", Detail: "is required for apply patch"}}))
		return
	}
	config, err := patch.ParseApply(body)
	if err != nil {
		apierr.Write(c.w, apierr.BadRequest("error decoding YAML: "+err.Error()))
		return
	}
	if av, kind := unstructured.String(config, "apiVersion"), unstructured.String(config, "kind"); av != c.res.APIVersion() || kind != c.res.Kind {
		apierr.Write(c.w, apierr.BadRequest("invalid object type: "+gvkString(av, kind)))
		return
	}
	if serr := checkKind(c.res, config); serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	meta := unstructured.Metadata(config)
	if mf, ok := meta["managedFields"]; ok && mf != nil {
		apierr.Write(c.w, apierr.BadRequest("metadata.managedFields must be nil"))
		return
	}
	if serr := c.checkApplyConfig(config); serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	if msg := fieldmanager.DuplicateEntries(c.res.Schema, config); msg != "" {
		apierr.Write(c.w, apierr.New(http.StatusInternalServerError, "", fmt.Sprintf("failed to create typed patch object (%s/%s; %s): %s",
			unstructured.String(meta, "namespace"), unstructured.String(meta, "name"), gvkString(c.res.APIVersion(), c.res.Kind), msg), nil))
		return
	}
	if unstructured.String(meta, "name") == "" {
		meta["name"] = c.info.Name
	}
	wr := c.write()
	wr.apply, wr.force = true, requestinfo.QueryBool(c.q, "force")
	var out updateResult
	var serr *kube.StatusError
	out, serr = s.admitted(wr, false, config, s.applyLocked)
	c.respondUpdate(out, serr)
}

// gvkString writes a group, version and kind as the real server's
// messages do: "apps/v1, Kind=Deployment", "/v1, Kind=ConfigMap".
func gvkString(apiVersion, kind string) string {
	if !strings.Contains(apiVersion, "/") {
		apiVersion = "/" + apiVersion
	}
	return apiVersion + ", Kind=" + kind
}

// fieldManagerOf returns the field manager of wr's write.
func (s *Server) fieldManagerOf(wr *write, now string) *fieldmanager.Manager {
	res := wr.res
	if wr.sub == "scale" {
		now = "" // kube-apiserver 1.36 records scale's entries without a time
	}
	return &fieldmanager.Manager{Schema: res.Schema, Builtin: res.CRD == "", StatusSub: res.Status, APIVersion: res.APIVersion(),
		Sub: wr.sub, StatusResetMeta: strategy.StatusResetMeta(res.Group, res.Plural), Now: now, Served: func(apiVersion string) bool {
			if apiVersion == res.APIVersion() {
				return true
			}
			group, version := kinds.SplitAPIVersion(apiVersion)
			return group == res.Group && s.reg.Lookup(group, version, res.Plural) != nil
		}}
}

// applyLocked applies config to the object wr names.
func (s *Server) applyLocked(wr *write, config obj) (updateResult, *kube.StatusError) {
	if name := unstructured.String(unstructured.Metadata(config), "name"); name != wr.name {
		return updateResult{}, apierr.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, wr.name))
	}
	prev := wr.col.objects[objectKey(wr.namespace, wr.name)]
	if prev == nil {
		if wr.sub != "" {
			return updateResult{}, apierr.NotFound(wr.res.Group, wr.res.Plural, wr.name)
		}
		if err := s.authorizeCreate(wr); err != nil {
			return updateResult{}, err
		}
		wr.applied = config
		o := unstructured.DeepCopy(config).(obj)
		if wr.manager == "kubectl" {
			fieldmanager.UpdateLastApplied(o, config)
		}
		rec, err := s.createLocked(wr, o)
		return updateResult{rec: rec, created: true}, err
	}
	live, serr := wr.res.Conversion.Read(wr.res.fromStored(mustDecode(prev.raw)), wr.res.APIVersion(), false)
	if serr != nil {
		return updateResult{}, serr
	}
	live["apiVersion"] = wr.res.APIVersion()
	fm := s.fieldManagerOf(wr, nowString())
	next, entries, err := fm.ApplyKubectl(live, config, wr.manager, wr.force)
	if err != nil {
		return updateResult{}, applyStatus(err)
	}
	unstructured.Metadata(next)["resourceVersion"] = formatRV(prev.rv)
	return s.updateLocked(wr, next, func(meta, _, _ obj, _ string) { fieldmanager.SetManagedFields(meta, entries) })
}

// recordCreate writes the managedFields of an object a write creates:
// the configuration's fields for an apply (wr.applied), else an Update
// from nothing, starting from the managedFields the request sent.
func (s *Server) recordCreate(wr *write, meta, o obj, requested any, ok bool, now string) {
	fm := s.fieldManagerOf(wr, now)
	if !wr.apply {
		fm.RecordUpdate(meta, nil, o, requested, ok, wr.manager)
		return
	}
	_, entries, err := fm.Apply(nil, wr.applied, nil, wr.manager, true)
	if err != nil {
		delete(meta, "managedFields")
		return
	}
	fieldmanager.SetManagedFields(meta, entries)
}

// applyStatus is the answer to a failed apply: the conflict error, or an
// internal error.
func applyStatus(e *fieldmanager.ApplyError) *kube.StatusError {
	if e.Internal != "" {
		return apierr.New(http.StatusInternalServerError, "", e.Internal, nil)
	}
	return errApplyConflict(e.Conflicts)
}

// errApplyConflict is the real server's conflict error
// (fieldmanager.ConflictMessage).
func errApplyConflict(conflicts []fieldmanager.Conflict) *kube.StatusError {
	msg, cs := fieldmanager.ConflictMessage(conflicts)
	causes := make([]kube.StatusCause, len(cs))
	for i, c := range cs {
		causes[i] = kube.StatusCause{Type: "FieldManagerConflict", Message: c.Message, Field: c.Field}
	}
	return apierr.New(http.StatusConflict, kube.ReasonConflict, msg, &kube.StatusDetails{Causes: causes})
}
