// SPDX-License-Identifier: Apache-2.0

package disruption

import (
	"encoding/json"
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/media"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// eviction is what the server reads of an Eviction.
type eviction struct {
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	DeleteOptions *protobuf.DeleteOptions `json:"deleteOptions"`
}

// DecodeEviction reads the Eviction body posted to the pods/eviction of
// the pod name in namespace: its deleteOptions (empty when it has none),
// or the message of the real server's 400 when it cannot be decoded or
// names another pod or namespace.
func DecodeEviction(body []byte, name, namespace string) (opts *protobuf.DeleteOptions, badRequest string) {
	var ev eviction
	if err := json.Unmarshal(body, &ev); err != nil {
		return nil, "error decoding Eviction: " + err.Error()
	}
	if ev.Metadata.Name != name {
		return nil, "name in URL does not match name in Eviction object"
	}
	if ns := ev.Metadata.Namespace; ns != "" && ns != namespace {
		return nil, "the namespace of the provided object does not match the namespace sent on the request"
	}
	if ev.DeleteOptions == nil {
		return &protobuf.DeleteOptions{}, ""
	}
	return ev.DeleteOptions, ""
}

// SetDisruptionTarget sets the pod's DisruptionTarget condition as an
// eviction sets it at now (reason EvictionByEvictionAPI; a condition True
// already keeps its transition time), keeping the others.
func SetDisruptionTarget(pod map[string]any, now string) {
	st, _ := pod["status"].(obj)
	if st == nil {
		st = obj{}
		pod["status"] = st
	}
	cond := obj{"type": "DisruptionTarget", "status": "True", "lastProbeTime": nil, "lastTransitionTime": now,
		"reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting"}
	conds, _ := st["conditions"].([]any)
	for i, c := range conds {
		if m, ok := c.(obj); ok && unstructured.String(m, "type") == "DisruptionTarget" {
			if unstructured.String(m, "status") == "True" {
				cond["lastTransitionTime"] = m["lastTransitionTime"]
			}
			conds[i] = cond
			return
		}
	}
	st["conditions"] = append(conds, cond)
}

// ReadEviction reads the Eviction r posts for the pod name in namespace,
// in JSON or, as client-go's typed client sends it, protobuf: its body
// as JSON and its delete options ([DecodeEviction]). What cannot be read
// is a 400.
func ReadEviction(r *http.Request, name, namespace string) ([]byte, *protobuf.DeleteOptions, *kube.StatusError) {
	body, err := media.ReadBody(r)
	if err != nil {
		return nil, nil, err
	}
	if mt, _ := media.BodyType(r); mt == protobuf.MediaType {
		js, jsErr := protobuf.ToJSON(body)
		if jsErr != nil {
			return nil, nil, apierr.BadRequest("error decoding Eviction: " + jsErr.Error())
		}
		body = js
	}
	opts, invalid := DecodeEviction(body, name, namespace)
	if invalid != "" {
		return nil, nil, apierr.BadRequest(invalid)
	}
	return body, opts, nil
}
