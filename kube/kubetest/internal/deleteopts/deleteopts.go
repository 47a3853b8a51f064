// SPDX-License-Identifier: Apache-2.0

// Package deleteopts reads the DeleteOptions of a DELETE as kube-apiserver
// 1.36 reads them: from the body (JSON, YAML or protobuf) and the query,
// checked as ValidateDeleteOptions checks them ([Parse]), and the
// propagation policy they ask for ([Propagation]).
//
// Guarantees:
//   - Pure: nothing is kept; every invalid option is reported.
package deleteopts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"strconv"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/patch"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
)

// Problem is why DeleteOptions were refused: a body of a media type not
// served (the real server's 415), a body or query that does not decode
// (Message, its 400), or invalid options (its 422).
type Problem struct {
	Unsupported bool
	Message     string
	Invalid     []fielderr.Error
}

// Parse reads DeleteOptions from a request's body, of media type
// contentType, and its query q (propagationPolicy, orphanDependents).
func Parse(contentType string, body []byte, q url.Values) (*protobuf.DeleteOptions, Problem) {
	var o protobuf.DeleteOptions
	if len(bytes.TrimSpace(body)) > 0 {
		mt, _, _ := mime.ParseMediaType(contentType)
		switch mt {
		case protobuf.MediaType:
			po, err := protobuf.DecodeDeleteOptions(body)
			if err != nil {
				return nil, Problem{Message: err.Error()}
			}
			o = *po
		case "", "application/json", "application/yaml":
			m, err := patch.ParseApply(body)
			if err == nil {
				err = json.Unmarshal(encode.Object(m), &o)
			}
			if err != nil {
				return nil, Problem{Message: "error decoding DeleteOptions: " + err.Error()}
			}
		default:
			return nil, Problem{Unsupported: true}
		}
	}
	if p := q.Get("propagationPolicy"); p != "" {
		o.PropagationPolicy = &p
	}
	if v := q.Get("orphanDependents"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, Problem{Message: fmt.Sprintf("failed to parse orphanDependents: %v", err)}
		}
		o.OrphanDependents = &b
	}
	var errs []fielderr.Error
	if o.OrphanDependents != nil && o.PropagationPolicy != nil {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "propagationPolicy", Value: *o.PropagationPolicy,
			Detail: "orphanDependents and deletionPropagation cannot be both set"})
	}
	if p := o.PropagationPolicy; p != nil && *p != "Foreground" && *p != "Background" && *p != "Orphan" {
		errs = append(errs, fielderr.Error{Type: "FieldValueNotSupported",
			Field: "propagationPolicy", Value: *p, Detail: fielderr.NotSupportedDetail("Foreground", "Background", "Orphan", "nil")})
	}
	if len(errs) > 0 {
		return nil, Problem{Invalid: errs}
	}
	return &o, Problem{}
}

// Propagation is the deletion policy o asks: orphanDependents turned into
// Orphan or, when false, Background (Foreground for a namespace, as the
// real namespace storage reads it), "" for the kind's default.
func Propagation(o *protobuf.DeleteOptions, namespace bool) string {
	switch {
	case o.OrphanDependents != nil && *o.OrphanDependents:
		return "Orphan"
	case o.OrphanDependents != nil && namespace:
		return "Foreground"
	case o.OrphanDependents != nil:
		return "Background"
	case o.PropagationPolicy != nil:
		return *o.PropagationPolicy
	}
	return ""
}

// Precondition is the real server's reason for refusing a delete whose
// preconditions (of o) the object's uid and resourceVersion do not meet;
// "" when they are met or there are none.
func Precondition(o *protobuf.DeleteOptions, uid, rv string) string {
	p := o.Preconditions
	switch {
	case p == nil:
	case p.UID != nil && *p.UID != uid:
		return fmt.Sprintf("the UID in the precondition (%s) does not match the UID in record (%s). "+
			"The object might have been deleted and then recreated", *p.UID, uid)
	case p.ResourceVersion != nil && *p.ResourceVersion != rv:
		return fmt.Sprintf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). "+
			"The object might have been modified", *p.ResourceVersion, rv)
	}
	return ""
}
