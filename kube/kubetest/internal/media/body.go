// SPDX-License-Identifier: Apache-2.0

package media

import (
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file reads request bodies as the real server does: the size
// limit, the media types it decodes, and the field manager a write names.

// MaxBodyBytes is the largest request body the server reads (the real
// server's 3 MiB).
const MaxBodyBytes = 3 << 20

// BodyTypes are the request body types the real server decodes, as its
// 415 lists them.
var BodyTypes = []string{"application/json", "application/yaml", protobuf.MediaType}

// ReadBody reads a request body, refusing one over MaxBodyBytes with the
// real server's 413.
func ReadBody(r *http.Request) ([]byte, *kube.StatusError) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, apierr.BadRequest("read the request body: " + err.Error())
	}
	if len(body) > MaxBodyBytes {
		return nil, apierr.New(http.StatusRequestEntityTooLarge, kube.ReasonRequestEntityLarge,
			"Request entity too large: limit is 3145728", nil)
	}
	return body, nil
}

// DecodeRequest reads the body of r as an object in the media type its
// Content-Type names (JSON when none): JSON, YAML, or protobuf of a
// built-in kind. A protobuf body of a kind without a protobuf layout
// (custom resources: the real server fails on one with a panic) answers
// 415, as other types do. Integers are decoded exactly (package
// unstructured); a number beyond float64's range is numErr, for the
// caller to word, with serr nil.
func DecodeRequest(r *http.Request) (o map[string]any, mt string, body []byte, numErr error, serr *kube.StatusError) {
	if mt, serr = BodyType(r); serr != nil {
		return nil, "", nil, nil, serr
	}
	if body, serr = ReadBody(r); serr != nil {
		return nil, "", nil, nil, serr
	}
	o, known, err := Decode(mt, body)
	if err == nil && !known {
		return nil, "", nil, nil, apierr.UnsupportedMedia(BodyTypes...)
	}
	if ne, ok := err.(unstructured.NumberError); ok {
		return nil, "", nil, ne, nil
	}
	if err != nil {
		return nil, "", nil, nil, apierr.BadRequest("the object provided could not be decoded: " + err.Error())
	}
	return o, mt, body, nil, nil
}

// BodyType is the media type of r's body: JSON (also when unsaid), YAML
// or protobuf, anything else 415.
func BodyType(r *http.Request) (string, *kube.StatusError) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return "application/json", nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/json" && mt != "application/yaml" && mt != protobuf.MediaType) {
		return "", apierr.UnsupportedMedia(BodyTypes...)
	}
	return mt, nil
}

// CheckBody checks the media type of r's body and reads it whole, for
// the requests whose body does not matter.
func CheckBody(r *http.Request) *kube.StatusError {
	if _, err := BodyType(r); err != nil {
		return err
	}
	_, err := ReadBody(r)
	return err
}

// ManagerOf is the field manager of a write: ?fieldManager=, or the
// first segment of the User-Agent cut to 128 bytes.
func ManagerOf(r *http.Request) string {
	if m := r.URL.Query().Get("fieldManager"); m != "" {
		return m
	}
	m, _, _ := strings.Cut(r.UserAgent(), "/")
	if len(m) > 128 {
		m = m[:128]
	}
	return m
}
