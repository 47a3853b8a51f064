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
// scheduler does (binding.Bind changes the pod, given the store by
// bindingPods). Nothing but the pod is stored.

// bindings is the resource path of Bindings.
var bindings = resource{Resource: kinds.Resource{Version: "v1", Plural: "bindings", Singular: "binding", Kind: "Binding",
	Namespaced: true, Verbs: []string{"create"}}}

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

// serveBinding answers a POST of a Binding (binding.Bind) with a 201
// Success Status; info.Name, when set, is the pod of pods/NAME/binding.
func (s *Server) serveBinding(w http.ResponseWriter, r *http.Request, info RequestInfo) {
	if info.Verb != "create" {
		apierr.Write(w, apierr.MethodNotAllowed())
		return
	}
	b, _, _, err := decodeRequestObject(r, nil)
	if err == nil {
		err = binding.Bind(bindingPods{s, info.Namespace}, b, info.Name)
	}
	if err != nil {
		apierr.Write(w, err)
		return
	}
	apierr.WriteJSON(w, http.StatusCreated, encode.Status(&kube.Status{Status: "Success", Code: http.StatusCreated}))
}

// bindingPods is the server's store of the pods of namespace ns as a
// Binding sees it (binding.Pods).
type bindingPods struct {
	s  *Server
	ns string
}

func (p bindingPods) Lock(fn func()) { p.s.withLock(fn) }

func (p bindingPods) PodLocked(name string) (map[string]any, bool) {
	if prev := p.s.cols["/pods"].objects[objectKey(p.ns, name)]; prev != nil {
		return mustDecode(prev.raw), prev.deleting
	}
	return nil, false
}

func (p bindingPods) WriteLocked(pod map[string]any) {
	res := p.s.reg.Lookup("", "v1", "pods")
	col := p.s.cols[res.colKey()]
	prev := col.objects[objectKey(p.ns, unstructured.String(unstructured.Metadata(pod), "name"))]
	rec := p.s.commitLocked(res, col, "MODIFIED", pod, prev)
	p.s.afterUpdateLocked(res, rec)
}
