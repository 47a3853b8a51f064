// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/binding"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file answers Bindings (core v1, create only), POSTed to a
// namespace's bindings or to pods/NAME/binding (the scheduler's way): a
// Binding assigns the pod of its name to the node of its target, as a
// scheduler does (package binding changes the pod). Nothing but the pod
// is stored.

// bindings is the resource path of Bindings; podBindings names the
// conflicts, as the real server qualifies them.
var (
	bindings = resource{Resource: kinds.Resource{Version: "v1", Plural: "bindings", Singular: "binding", Kind: "Binding",
		Namespaced: true, Verbs: []string{"create"}}}
	podBindings = resource{Resource: kinds.Resource{Plural: "pods/binding"}}
)

// isBinding reports whether info names a namespace's Bindings, or a
// pod's binding subresource (pods/NAME/binding, which client-go's Bind
// posts to).
func isBinding(info RequestInfo) bool {
	if info.Group != "" || info.Version != "v1" || info.Namespace == "" {
		return false
	}
	return info.Resource == bindings.Plural && info.Subresource == "" && info.Name == "" ||
		info.Resource == "pods" && info.Subresource == "binding" && info.Name != ""
}

// serveBinding answers a POST of a Binding as kube-apiserver 1.36 does:
// the pod of metadata.name gets spec.nodeName from target.name, the
// Binding's annotations, and a PodScheduled condition of status True, in
// one write past the field manager (managedFields and generation do not
// change); the answer is a 201 Success Status. Posted to pods/NAME/binding,
// a Binding of another name is a 400. A pod already assigned or
// being deleted is a 409, a missing one a 404, and a target of another
// kind than Node or without a name a 500 whose message lists the fields,
// as the real handler returns the validation error unwrapped.
func (s *Server) serveBinding(w http.ResponseWriter, r *http.Request, info RequestInfo) {
	if info.Verb != "create" {
		apierr.Write(w, apierr.MethodNotAllowed())
		return
	}
	s.bind(w, r, info.Namespace, info.Name) // the pod's name for pods/NAME/binding
}

// bind answers the Binding r carries in namespace ns; urlName, when set,
// is the pod the URL names, which the Binding's name must be.
func (s *Server) bind(w http.ResponseWriter, r *http.Request, ns, urlName string) {
	b, _, _, serr := decodeRequestObject(r, nil)
	if serr != nil {
		apierr.Write(w, serr)
		return
	}
	meta := unstructured.Metadata(b)
	if urlName != "" && unstructured.String(meta, "name") != urlName {
		apierr.Write(w, apierr.BadRequest("name in URL does not match name in Binding object"))
		return
	}
	node, invalid := binding.Target(b)
	if invalid != "" {
		apierr.Write(w, apierr.New(http.StatusInternalServerError, "", invalid, nil))
		return
	}
	ann, _ := meta["annotations"].(obj)
	var err *kube.StatusError
	s.withLock(func() { err = s.bindLocked(ns, unstructured.String(meta, "name"), node, ann) })
	if err != nil {
		apierr.Write(w, err)
		return
	}
	apierr.WriteJSON(w, http.StatusCreated, encode.Status(&kube.Status{Status: "Success", Code: http.StatusCreated}))
}

// bindLocked assigns the pod ns/name to node, giving it the Binding's
// annotations (binding.Assign). The caller holds s.mu.
func (s *Server) bindLocked(ns, name, node string, annotations obj) *kube.StatusError {
	pods := s.reg.lookup("", "v1", "pods")
	col := s.cols[pods.colKey()]
	prev := col.objects[objectKey(ns, name)]
	switch {
	case prev == nil:
		return apierr.NotFound(pods.Group, pods.Plural, name)
	case prev.deleting:
		return apierr.Conflict(podBindings.Group, podBindings.Plural, name, "pod "+name+" is being deleted, cannot be assigned to a host")
	}
	o := mustDecode(prev.raw)
	if conflict := binding.Assign(o, name, node, annotations, nowString()); conflict != "" {
		return apierr.Conflict(podBindings.Group, podBindings.Plural, name, conflict)
	}
	rec := s.commitLocked(pods, col, "MODIFIED", o, prev)
	s.afterUpdateLocked(pods, rec)
	return nil
}
