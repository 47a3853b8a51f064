// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file serves pods/log (kubectl logs) as kube-apiserver 1.36 serves
// it for a pod no kubelet runs: the options and the container are checked
// with the real errors, and the log is empty (204 No Content), as the real
// server answers for a pod without a node. kubetest never schedules pods;
// a pod given a spec.nodeName is answered the same, where the real server
// would ask that node's kubelet.

// isPodLog reports whether the call is to pods/log.
func isPodLog(res *resource, info RequestInfo) bool {
	return res.Group == "" && res.Plural == "pods" && info.Subresource == "log"
}

// servePodLog answers a GET of pods/log.
func (s *Server) servePodLog(c *call) {
	if c.info.Verb != "get" {
		writeError(c.w, errMethodNotAllowed())
		return
	}
	if errs := podLogOptionErrors(c.q.Get); len(errs) > 0 {
		writeError(c.w, errInvalid("", "PodLogOptions", c.info.Name, errs))
		return
	}
	var rec *record
	s.withLock(func() { rec = c.col.objects[c.key()] })
	if rec == nil {
		writeError(c.w, errNotFound(c.res, c.info.Name))
		return
	}
	if err := checkLogContainer(mustDecode(rec.raw), c.info.Name, c.q.Get("container")); err != nil {
		writeError(c.w, err)
		return
	}
	c.w.Header().Set("Cache-Control", "no-cache, private")
	c.w.WriteHeader(http.StatusNoContent)
}

// podLogOptionErrors checks the numeric options of a log request, as
// PodLogOptions validation does.
func podLogOptionErrors(get func(string) string) []fielderr.Error {
	var errs []fielderr.Error
	num := func(name string) (int64, bool) {
		n, err := strconv.ParseInt(get(name), 10, 64)
		return n, err == nil
	}
	if n, ok := num("tailLines"); ok && n < 0 {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "tailLines", Value: n,
			Detail: "must be greater than or equal to 0"})
	}
	if n, ok := num("limitBytes"); ok && n < 1 {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "limitBytes", Value: n,
			Detail: "must be greater than 0"})
	}
	if n, ok := num("sinceSeconds"); ok {
		switch {
		case get("sinceTime") != "":
			errs = append(errs, fielderr.Error{Type: "FieldValueForbidden", Field: "",
				Detail: "at most one of `sinceTime` or `sinceSeconds` may be specified"})
		case n < 1:
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "sinceSeconds", Value: n,
				Detail: "must be greater than 0"})
		}
	}
	return errs
}

// checkLogContainer checks the container a log request names (none: the
// pod's only one) against the pod's init, regular and ephemeral
// containers.
func checkLogContainer(pod obj, name, container string) *kube.StatusError {
	spec, _ := pod["spec"].(obj)
	var all []string
	for _, k := range []string{"initContainers", "containers", "ephemeralContainers"} {
		list, _ := spec[k].([]any)
		for _, c := range list {
			if m, ok := c.(obj); ok {
				all = append(all, unstructured.String(m, "name"))
			}
		}
	}
	containers, _ := spec["containers"].([]any)
	if container == "" {
		switch len(containers) {
		case 1:
			return nil
		case 0:
			return errBadRequest("a container name must be specified for pod " + name)
		}
		return errBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %s", name, all))
	}
	for _, c := range all {
		if c == container {
			return nil
		}
	}
	return errBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, name))
}
