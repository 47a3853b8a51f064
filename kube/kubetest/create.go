// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/defaulting"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/events"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/gc"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/strategy"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/validation"
)

// This file creates objects (POST, and PUT or apply of a missing object)
// and holds the low-level commit that every write goes through.

// write describes one write: who makes it and where.
type write struct {
	res       *resource
	col       *collection
	namespace string // of the request; empty for cluster-scoped kinds
	name      string // from the URL; empty for POST
	sub       string // "" or "status"
	manager   string
	apply     bool // server-side apply: managedFields record operation Apply
	force     bool // apply with force=true
	applied   obj  // the configuration of an apply that creates the object
	dryRun    bool
	// user made the request; "" for the server's own writes.
	user string
	// propagation is the deletion's propagationPolicy (Orphan,
	// Background, Foreground; orphanDependents turned into one), "" for
	// the default.
	propagation string
	// call is the client's request that makes the write, whose admission
	// webhooks admit.go calls; nil for the server's own writes.
	call *call
	// pinned is what a create stores whatever the object (see pin).
	pinned pinned
}

// makeRecord encodes o, whose resourceVersion is set, into a record.
func makeRecord(res *resource, o obj) *record {
	meta := unstructured.Metadata(o)
	raw, tm := encode.ObjectTM(o)
	labels, _ := unstructured.StringMap(meta, "labels")
	ns, name := unstructured.String(meta, "namespace"), unstructured.String(meta, "name")
	fields := map[string]string{"metadata.name": name, "metadata.namespace": ns}
	res = res.stored()
	for _, f := range res.Fields {
		if v, ok := res.FieldValue(o, f); ok {
			fields[f] = unstructured.FieldString(v)
		}
	}
	for alias, f := range res.FieldAliases {
		if v, ok := fields[f]; ok {
			fields[alias] = v
		}
	}
	rv, _ := strconv.ParseUint(unstructured.String(meta, "resourceVersion"), 10, 64)
	rec := &record{key: objectKey(ns, name), namespace: ns, name: name, uid: unstructured.String(meta, "uid"), rv: rv,
		labels: labels, fields: fields, deleting: meta["deletionTimestamp"] != nil, raw: raw, tm: tm,
		owners: gc.ParseOwners(meta)}
	if fins, _ := meta["finalizers"].([]any); len(fins) > 0 {
		rec.orphan = slices.Contains(fins, any(gc.FinalizerOrphan))
		rec.foreground = slices.Contains(fins, any(gc.FinalizerForeground))
		rec.gcFinalizer = rec.orphan || rec.foreground
	}
	return rec
}

// commitLocked stores o as the new state of its key with the next
// resourceVersion and tells the watchers.
func (s *Server) commitLocked(res *resource, col *collection, typ string, o obj, prev *record) *record {
	rv := s.nextRV()
	unstructured.Metadata(o)["resourceVersion"] = formatRV(rv)
	rec := makeRecord(res, o)
	e := &event{typ: typ, rv: rv, obj: rec, prev: prev}
	s.dispatchLocked(col, e)
	s.observeLocked(res, e)
	return rec
}

// removeLocked deletes prev. The DELETED event (and the answer) carries the
// last stored state with the deletion's resourceVersion, as etcd's
// previous key-value does.
func (s *Server) removeLocked(res *resource, col *collection, prev *record) *record {
	rv := s.nextRV()
	o := mustDecode(prev.raw)
	unstructured.Metadata(o)["resourceVersion"] = formatRV(rv)
	rec := makeRecord(res, o)
	e := &event{typ: "DELETED", rv: rv, obj: rec, prev: prev}
	s.dispatchLocked(col, e)
	s.observeLocked(res, e)
	s.afterRemoveLocked(res, rec)
	return rec
}

// dispatchLocked applies e to the collection and offers it to its watchers.
func (s *Server) dispatchLocked(col *collection, e *event) {
	col.apply(e)
	for w := range col.watchers {
		s.offerLocked(w, e)
	}
}

// ensureNamespace reconciles the namespace of the body with the request's
// (strategy.EnsureNamespace).
func ensureNamespace(meta obj, requestNS string) *kube.StatusError {
	if !strategy.EnsureNamespace(meta, requestNS) {
		return apierr.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// checkNamespaceLocked refuses writes into a missing namespace (404) and
// creates in a terminating one (403), as the NamespaceLifecycle admission
// plugin does.
func (s *Server) checkNamespaceLocked(wr *write, name string, create bool) *kube.StatusError {
	if !wr.res.Namespaced {
		return nil
	}
	ns := s.cols["/namespaces"].objects[wr.namespace]
	if ns == nil {
		return apierr.NamespaceNotFound(wr.namespace)
	}
	if create && ns.deleting {
		e := apierr.Forbidden(wr.res.Group, wr.res.Plural, name,
			"unable to create new content in namespace "+wr.namespace+" because it is being terminated")
		e.Status.Details.Causes = []kube.StatusCause{{Type: "NamespaceTerminating",
			Message: "namespace " + wr.namespace + " is being terminated", Field: "metadata.namespace"}}
		return e
	}
	return nil
}

// createLocked creates o. It answers the stored record, or for a dry run
// the record that would have been stored (with the resourceVersion the
// request carried, none when it carried none).
func (s *Server) createLocked(wr *write, o obj) (*record, *kube.StatusError) {
	res, col := wr.res, wr.col
	coerceObject(res, o)
	meta := unstructured.Metadata(o)
	if err := ensureNamespace(meta, wr.namespace); err != nil {
		return nil, err
	}
	// The storage refuses a resourceVersion; a dry run never reaches it
	// and answers the one sent.
	sentRV, hasSentRV := meta["resourceVersion"]
	if rv := unstructured.String(meta, "resourceVersion"); rv != "" && rv != "0" && !wr.dryRun {
		return nil, apierr.New(http.StatusInternalServerError, kube.ReasonUnknown,
			"resourceVersion should not be set on objects to be created", nil)
	}
	name := unstructured.String(meta, "name")
	if name == "" && unstructured.String(meta, "generateName") != "" {
		name = generateNameIn(col, wr.namespace, unstructured.String(meta, "generateName"))
		meta["name"] = name
	}
	if errs := append(validation.Metadata(res.Names, meta, name, s.facts.OwnerRefs), validateCustomResource(res, "", o, nil, s.facts.OldCRDWording)...); len(errs) > 0 {
		return nil, apierr.Invalid(res.KindGroup(), res.Kind, name, fielderr.InGoSyntax(errs, s.facts.GoSyntaxValues))
	}
	if err := s.checkNamespaceLocked(wr, name, true); err != nil {
		return nil, err
	}
	if res.CRD != "" && s.crdTerminatingLocked(res.CRD) {
		return nil, apierr.New(http.StatusMethodNotAllowed, kube.ReasonMethodNotAllowed,
			"create not allowed while custom resource definition is terminating", &kube.StatusDetails{})
	}
	if existing := col.objects[objectKey(wr.namespace, name)]; existing != nil {
		err := apierr.AlreadyExists(res.Group, res.Plural, name)
		if existing.deleting {
			err.Status.Message = "object is being deleted: " + err.Status.Message
		}
		return nil, err
	}
	requested, hasRequested := meta["managedFields"]
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
		"deletionGracePeriodSeconds", "generation", "selfLink", "managedFields"} {
		delete(meta, k)
	}
	now := nowString()
	meta["uid"] = strategy.NewUID()
	meta["creationTimestamp"] = now
	if res.Generation {
		meta["generation"] = int64(1)
	}
	// managedFields see the request after defaulting (the namespace label)
	// and before the create strategy, whose fields nobody manages.
	defaultKind(res, o)
	if errs := slices.Concat(validation.Data(res.Group, res.Plural, o), events.Validate(res.Group, res.Plural, o, nil),
		defaulting.Validate(res.Group, res.Plural, o), validation.PodSpec(res.Group, res.Plural, o)); len(errs) > 0 {
		return nil, apierr.Invalid(res.KindGroup(), res.Kind, name, errs)
	}
	s.recordCreate(wr, meta, o, requested, hasRequested, now)
	wr.pin(meta)
	if s.facts.NullCreationTimestamp {
		defaulting.NullTemplateTimestamps(res.Group, res.Plural, o)
	}
	initStatus(res, o)
	if err := s.prepareCreateLocked(res, o); err != nil {
		return nil, err
	}
	o = res.toStored(o)
	o, err := res.Conversion.ToStorage(o, res.storageAPIVersion())
	if err != nil {
		return nil, err
	}
	o["apiVersion"] = res.storageAPIVersion()
	if wr.dryRun {
		if hasSentRV && sentRV != "" {
			unstructured.Metadata(o)["resourceVersion"] = sentRV
		}
		return makeRecord(res, o), nil
	}
	rec := s.commitLocked(res, col, "ADDED", o, nil)
	s.afterCreateLocked(res, rec)
	return rec, nil
}

// generateNameIn returns a name made from prefix, as generateName asks,
// that no object of col in namespace ns has, if one of 8 tries finds one
// (the real server retries generated names that are taken), else the
// last tried.
func generateNameIn(col *collection, ns, prefix string) (name string) {
	for range 8 {
		name = strategy.GenerateName(prefix)
		if col.objects[objectKey(ns, name)] == nil {
			break
		}
	}
	return name
}

// initStatus gives o, being created, the status the resource starts
// with: for kinds with a status subresource, the one sent is dropped (or,
// for those that keep it, completed) and the initial one set.
func initStatus(res *resource, o obj) {
	if st, given := o["status"].(map[string]any); res.Status && res.KeepStatus && given {
		for k, v := range res.InitStatus() {
			if _, ok := st[k]; !ok {
				st[k] = v
			}
		}
	} else if res.Status {
		if res.InitStatus != nil {
			o["status"] = res.InitStatus()
		} else {
			delete(o, "status")
		}
	}
}

func (s *Server) serveCreate(c *call) {
	if c.info.Name != "" {
		apierr.Write(c.w, apierr.MethodNotAllowed())
		return
	}
	o, err := c.decodeBody()
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	out, err := s.admitted(c.write(), true, o, s.createStore)
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	c.respond(http.StatusCreated, out.rec.raw)
}

// write describes the call's write.
func (c *call) write() *write {
	ns := c.info.Namespace
	if !c.res.Namespaced {
		ns = ""
	}
	return &write{res: c.res, col: c.col, namespace: ns, name: c.info.Name, sub: c.info.Subresource,
		manager: c.manager, dryRun: c.dryRun, user: c.info.User, call: c}
}
