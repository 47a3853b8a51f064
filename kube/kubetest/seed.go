// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file holds the conveniences that let a test seed and inspect the
// server without HTTP. They go through the same validation, storage and
// watch notification as requests do, but skip authentication, fault
// injection and request counting. Objects come back as fresh maps the
// caller owns, numbers in them as the server holds them (an integer as an
// int64, exactly; another number as a float64: internal/unstructured); errors are
// *kube.StatusError as a client would get them.

// seedManager is the field manager of writes made through these methods.
const seedManager = "kubetest"

// resolve finds the storage of gvr.
func (s *Server) resolveLocked(gvr kube.GroupVersionResource) (*resource, *collection, *kube.StatusError) {
	res := s.reg.Lookup(gvr.Group, gvr.Version, gvr.Resource)
	if res == nil {
		return nil, nil, apierr.ResourceNotFound()
	}
	return res, s.cols[res.colKey()], nil
}

// seedWrite describes a write of o to gvr by the seeding manager.
func (s *Server) seedWriteLocked(gvr kube.GroupVersionResource, o obj) (*write, *kube.StatusError) {
	res, col, err := s.resolveLocked(gvr)
	if err != nil {
		return nil, err
	}
	if err := checkKind(res, o); err != nil {
		return nil, err
	}
	ns := ""
	if res.Namespaced {
		if ns = unstructured.String(unstructured.Metadata(o), "namespace"); ns == "" {
			ns = "default"
		}
	}
	return &write{res: res, col: col, namespace: ns, name: unstructured.String(unstructured.Metadata(o), "name"), manager: seedManager}, nil
}

// Create stores object in the resource gvr as a POST would (into its
// metadata.namespace, "default" when empty) and returns what was stored.
func (s *Server) Create(gvr kube.GroupVersionResource, object any) (map[string]any, error) {
	return s.seed(gvr, object, func(wr *write, o obj) (*record, *kube.StatusError) {
		wr.name = ""
		return s.createLocked(wr, o)
	})
}

// Update replaces the object as a PUT would (without a resourceVersion
// in the object, unconditionally for kinds that allow it).
func (s *Server) Update(gvr kube.GroupVersionResource, object any) (map[string]any, error) {
	return s.seed(gvr, object, func(wr *write, o obj) (*record, *kube.StatusError) {
		out, err := s.updateLocked(wr, o, nil)
		return out.rec, err
	})
}

// UpdateStatus replaces the status of the object as a PUT to /status
// would.
func (s *Server) UpdateStatus(gvr kube.GroupVersionResource, object any) (map[string]any, error) {
	return s.seed(gvr, object, func(wr *write, o obj) (*record, *kube.StatusError) {
		if !wr.res.Status {
			return nil, apierr.ResourceNotFound()
		}
		wr.sub = "status"
		out, err := s.updateLocked(wr, o, nil)
		return out.rec, err
	})
}

// seed is the body of the seeding writes: it runs do on object, under
// the lock, and returns what was stored.
func (s *Server) seed(gvr kube.GroupVersionResource, object any, do func(*write, obj) (*record, *kube.StatusError)) (map[string]any, error) {
	o, decodeErr := unstructured.FromValue(object) // a fresh map, from raw JSON or a value that encodes to an object
	if decodeErr != nil {
		return nil, apierr.BadRequest(decodeErr.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.runControllersLocked()
	wr, err := s.seedWriteLocked(gvr, o)
	if err != nil {
		return nil, err
	}
	rec, err := do(wr, o)
	if err != nil {
		return nil, err
	}
	return rendered(wr.res, rec.raw)
}

// rendered is the stored raw as res serves it, converted by the CRD's
// conversion webhook if res has one.
func rendered(res *resource, raw []byte) (map[string]any, error) {
	raw, err := res.Conversion.ReadRaw(raw, res.APIVersion(), false)
	if err != nil {
		return nil, err
	}
	return mustDecode(renderAs(raw, res, false)), nil
}

// Get returns the object namespace/name of gvr (namespace is ignored for
// cluster-scoped resources).
func (s *Server) Get(gvr kube.GroupVersionResource, namespace, name string) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, col, err := s.resolveLocked(gvr)
	if err != nil {
		return nil, err
	}
	if !res.Namespaced {
		namespace = ""
	}
	rec := col.objects[objectKey(namespace, name)]
	if rec == nil {
		return nil, apierr.NotFound(res.Group, res.Plural, name)
	}
	return rendered(res, rec.raw)
}

// List returns the objects of gvr in namespace (all namespaces when
// empty), sorted by namespace and name.
func (s *Server) List(gvr kube.GroupVersionResource, namespace string) ([]map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, col, err := s.resolveLocked(gvr)
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	for _, k := range col.keys() {
		if r := col.objects[k]; namespace == "" || r.namespace == namespace {
			o, err := rendered(res, r.raw)
			if err != nil {
				return nil, err
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// Delete deletes the object as a DELETE would: at once, or by marking it
// deleting when finalizers hold it.
func (s *Server) Delete(gvr kube.GroupVersionResource, namespace, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.runControllersLocked()
	res, col, err := s.resolveLocked(gvr)
	if err != nil {
		return err
	}
	if !res.Namespaced {
		namespace = ""
	}
	prev := col.objects[objectKey(namespace, name)]
	if prev == nil {
		return apierr.NotFound(res.Group, res.Plural, name)
	}
	_, _, err = s.deleteLocked(&write{res: res, col: col, namespace: namespace, name: name, manager: seedManager}, prev)
	if err != nil {
		return err
	}
	return nil
}
