// SPDX-License-Identifier: Apache-2.0

// Package podlog checks a pods/log request as kube-apiserver 1.36 does
// before it would ask a kubelet: its options ([OptionErrors], as
// PodLogOptions validation) and the container it names
// ([CheckContainer]); [Serve] answers the request, given the pod.
// kubetest runs no kubelet, so a log that passes is empty.
//
// Guarantees:
//   - Both checks keep no state and never modify what they are given.
//   - Every invalid option is reported, not only the first.
package podlog

import (
	"fmt"
	"strconv"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// obj is a decoded JSON object.
type obj = map[string]any

// OptionErrors checks the numeric options of a log request, read with
// get (a query's Get), as PodLogOptions validation does.
func OptionErrors(get func(string) string) []fielderr.Error {
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

// CheckContainer checks the container a log request of the pod named
// name names (none: the pod's only one) against the pod's init, regular
// and ephemeral containers. It returns the message of the 400 the real
// server answers, "" when the container is valid.
func CheckContainer(pod map[string]any, name, container string) (badRequest string) {
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
			return ""
		case 0:
			return "a container name must be specified for pod " + name
		}
		return fmt.Sprintf("a container name must be specified for pod %s, choose one of: %s", name, all)
	}
	for _, c := range all {
		if c == container {
			return ""
		}
	}
	return fmt.Sprintf("container %s is not valid for pod %s", container, name)
}
