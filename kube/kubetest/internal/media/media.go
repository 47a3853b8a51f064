// SPDX-License-Identifier: Apache-2.0

// Package media is what kubetest's server does with media types as
// kube-apiserver 1.37 does: the form of an answer an Accept header asks
// for ([Negotiate]: JSON, the PartialObjectMetadata projection, or a
// Table), and the decoding of a request body by its Content-Type
// ([Decode]: JSON, YAML, or protobuf of a built-in kind), and the
// reading of a request's body ([ReadBody] within [MaxBodyBytes],
// [DecodeRequest], [BodyType]) and field manager ([ManagerOf]).
//
// Guarantees:
//   - Pure: nothing is kept; Decode returns a fresh object the caller
//     owns, its integers exact (package unstructured).
package media

import (
	"fmt"
	"mime"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/patch"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// Negotiate picks the response form from the Accept header: plain JSON,
// the metadata-only projection, or a Table of meta.k8s.io version table;
// pb when in protobuf (the object itself only when proto says its kind
// has a protobuf form; never a Table, as the real server). ok is false
// when nothing acceptable is offered.
func Negotiate(accept string, list, watch, proto bool) (partial bool, table string, pb, ok bool) {
	if strings.TrimSpace(accept) == "" {
		return false, "", false, true
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		as := params["as"]
		switch mt {
		case "application/json", "*/*", "application/*":
		case protobuf.MediaType:
			if as == "Table" || as == "" && !proto {
				continue
			}
		default:
			continue
		}
		pb = mt == protobuf.MediaType
		if as == "" {
			return false, "", pb, true
		}
		if params["g"] != "meta.k8s.io" {
			continue
		}
		switch v := params["v"]; {
		case as == "Table" && (v == "v1" || v == "v1beta1"):
			return false, v, false, true
		case v != "v1":
		case as == "PartialObjectMetadataList" && (list || watch):
			return true, "", pb, true
		case as == "PartialObjectMetadata" && (!list || watch):
			return true, "", pb, true
		}
	}
	return false, "", false, false
}

// Decode decodes a request body of media type mt ("application/yaml",
// protobuf.MediaType, else JSON) into an object. known is false for a
// protobuf body of a kind without a protobuf layout (custom resources).
// A number beyond float64's range is an unstructured.NumberError.
func Decode(mt string, body []byte) (o map[string]any, known bool, err error) {
	switch mt {
	case "application/yaml":
		o, err = patch.ParseApply(body)
	case protobuf.MediaType:
		return protobuf.DecodeObject(body)
	default:
		o, err = unstructured.DecodeObjectOrNull(body)
		if err == nil && o == nil {
			err = fmt.Errorf("the body is not a JSON object")
		}
	}
	return o, true, err
}
