// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/kube"
)

// Body limits. The kube-apiserver decodes write bodies of at most 3 MiB
// (its MaxRequestBodyBytes; etcd keeps at most 1.5 MiB per object), and an
// UPDATE's review carries the object twice (object and oldObject) plus the
// options: 7 MiB holds the largest review it sends.
//
// A conversion review carries the objects to convert. The kube-apiserver
// (1.36) sends one object per review: it converts each object as it reads
// it from etcd (for its watch cache, a get, a list) and each object
// written in another version than the stored one. An object is at most
// 1.5 MiB in etcd and 3 MiB in a write; 8 MiB holds either, re-encoded
// and wrapped in a review, with room for older API servers that convert
// a list's objects in one review. Each review being converted holds about
// twice its size in memory (the body and the converted objects); the
// reviews being converted at once may hold at most
// MaxConversionBytesInFlight of bodies: four maximal reviews, or a
// hundred of 300 KiB.
const (
	MaxAdmissionBytes          = 7 << 20
	MaxConversionBytes         = 8 << 20
	MaxConversionBytesInFlight = 4 * MaxConversionBytes
)

// Memory limits of admission reviews. Decoded, an admission review takes
// far more memory than its body: each JSON value takes hundreds of
// bytes, and the typed handlers decode the object several times over (a
// review of 5 MB holding 160,000 small objects raised the heap by
// 264 MiB, six at once by 1.2 GiB). The memory a review will take is
// estimated from its body before it is decoded (see [AdmissionHandler]);
// one review may take at most MaxAdmissionMemory, an object of about
// 100,000 array elements or 50,000 object members (the API server
// accepts objects of 3 MiB, which could hold a million), and the reviews
// answered at once MaxAdmissionMemoryInFlight.
const (
	MaxAdmissionMemory         = 64 << 20
	MaxAdmissionMemoryInFlight = 2 * MaxAdmissionMemory
)

// DefaultTimeout bounds a handler's context when the request has no
// timeout parameter: 30s is the largest timeoutSeconds a webhook
// configuration may set.
const DefaultTimeout = 30 * time.Second

// requestError is a request that cannot be answered with a review: the
// answer is an HTTP error with a Status body, which the API server treats
// as a failed call (and applies the webhook's failurePolicy).
type requestError struct {
	code int
	msg  string
}

func (e *requestError) Error() string { return e.msg }

// checkPost checks that r is a POST of application/json.
func checkPost(w http.ResponseWriter, r *http.Request) *requestError {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return &requestError{http.StatusMethodNotAllowed, fmt.Sprintf("method %s is not allowed, only POST", r.Method)}
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return &requestError{http.StatusUnsupportedMediaType, fmt.Sprintf("content type %q is not supported, only application/json", ct)}
	}
	return nil
}

// readBody reads r's body, at most limit bytes. A body whose length the
// request states is read into one buffer of that size, without the
// copies of a growing one.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *requestError) {
	size := int64(512)
	if r.ContentLength > 0 && r.ContentLength <= limit {
		size = r.ContentLength + 1 // room to read the end without growing
	}
	body := make([]byte, 0, size)
	rd := http.MaxBytesReader(w, r.Body, limit)
	for {
		if len(body) == cap(body) {
			body = append(body, 0)[:len(body)]
		}
		n, err := rd.Read(body[len(body):cap(body)])
		body = body[:len(body)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if _, ok := errs.As[*http.MaxBytesError](err); ok {
			return nil, &requestError{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is larger than the limit of %d bytes", limit)}
		}
		if err != nil {
			return nil, &requestError{http.StatusBadRequest, fmt.Sprintf("read request body: %v", err)}
		}
	}
	if len(body) == 0 {
		return nil, &requestError{http.StatusBadRequest, "request body is empty"}
	}
	return body, nil
}

// requestTimeout reads the timeout parameter the API server appends to
// the webhook's URL (?timeout=10s); absent, it is [DefaultTimeout].
func requestTimeout(r *http.Request) (time.Duration, error) {
	s := r.URL.Query().Get("timeout")
	if s == "" {
		return DefaultTimeout, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("parse timeout parameter %q: want a positive duration such as 10s", s)
	}
	return d, nil
}

// reviewVersion checks a review's apiVersion and kind against the versions
// served, and returns the apiVersion to answer in.
func reviewVersion(apiVersion, kind, wantKind string, versions ...string) (string, error) {
	for _, v := range versions {
		if apiVersion == v && kind == wantKind {
			return v, nil
		}
	}
	return versions[0], fmt.Errorf("want a %s of %s, got apiVersion %q kind %q",
		wantKind, strings.Join(versions, " or "), apiVersion, kind)
}

// answer is an HTTP answer, encoded.
type answer struct {
	code int
	body []byte
}

// encodeError is an HTTP error with a Status body.
func encodeError(e *requestError) answer {
	st := kube.NewStatusError(e.code, kube.ReasonForCode(e.code), e.msg).Status
	return encodeJSON(e.code, st)
}

// encodeJSON is code with v as JSON.
func encodeJSON(code int, v any) answer {
	b, err := json.Marshal(v)
	if err != nil {
		// Reviews and Statuses hold only JSON values and raw JSON that
		// was read as valid: this does not happen.
		b, _ = json.Marshal(kube.NewStatusError(http.StatusInternalServerError, kube.ReasonForCode(http.StatusInternalServerError),
			fmt.Sprintf("encode response: %v", err)).Status)
		code = http.StatusInternalServerError
	}
	return answer{code, b}
}

// write sends a, stating its length, so that a client has all of it once
// it is flushed.
func (a answer) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(a.body)))
	w.WriteHeader(a.code)
	_, _ = w.Write(a.body) // the API server's timeout or a cut connection: nobody to tell
}

// writeError answers an HTTP error with a Status body.
func writeError(w http.ResponseWriter, e *requestError) { encodeError(e).write(w) }

// writeJSON answers code with v as JSON.
func writeJSON(w http.ResponseWriter, code int, v any) { encodeJSON(code, v).write(w) }
