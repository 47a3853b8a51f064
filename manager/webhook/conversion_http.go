// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/kubeloop/kubeloop/kube"
)

// ServeHTTP answers one ConversionReview; see [Conversion].
func (c *Conversion) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c == nil {
		notMade(w, "*webhook.Conversion")
		return
	}
	body, release, rerr := c.budget.read(w, r, c.limits())
	if rerr != nil {
		writeError(w, rerr)
		return
	}
	defer release()
	var review conversionIn
	decodeErr := json.Unmarshal(body, &review)
	if review.Request == nil || review.Request.UID == "" {
		msg := "conversion review has no request.uid"
		if decodeErr != nil {
			msg = fmt.Sprintf("decode conversion review: %v", decodeErr)
		}
		writeError(w, &requestError{http.StatusBadRequest, msg})
		return
	}
	version, versionErr := reviewVersion(review.APIVersion, review.Kind, "ConversionReview", ConversionV1, ConversionV1beta1)
	var objects [][]byte
	err := errors.Join(decodeErr, versionErr)
	if err != nil {
		err = fmt.Errorf("decode conversion review: %w", err)
	} else {
		objects, err = c.convertAll(review.Request.DesiredAPIVersion, review.Request.Objects)
	}
	if err != nil {
		resp := ConversionResponse{UID: review.Request.UID, Result: kube.Status{Status: "Failure", Message: err.Error()}}
		writeJSON(w, http.StatusOK, ConversionReview{APIVersion: version, Kind: "ConversionReview", Response: &resp})
		return
	}
	writeConverted(w, version, review.Request.UID, objects)
}

// conversionIn is a ConversionReview as Serve reads it: the objects are
// slices of the request's body, not copies (see span).
type conversionIn struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    *struct {
		UID               string `json:"uid"`
		DesiredAPIVersion string `json:"desiredAPIVersion"`
		Objects           []span `json:"objects"`
	} `json:"request"`
}

// span is a JSON value kept as the slice of the input it was read from:
// json.Unmarshal hands an Unmarshaler the value's bytes within its input,
// which belongs to the caller and is not changed. The slice's capacity
// ends with the value, so that a ConvertFunc that appends to its argument
// cannot write over what follows.
type span []byte

func (s *span) UnmarshalJSON(b []byte) error {
	*s = b[:len(b):len(b)]
	return nil
}

// convertAll converts every object to desired, or fails.
func (c *Conversion) convertAll(desired string, objects []span) ([][]byte, error) {
	group, version := kube.ParseAPIVersion(desired)
	if version == "" {
		return nil, fmt.Errorf("desired apiVersion %q has no version", desired)
	}
	out := make([][]byte, len(objects))
	for i, raw := range objects {
		obj, err := c.convertOne(raw, group, version)
		if err != nil {
			return nil, fmt.Errorf("convert object %d%s to %s: %w", i, c.describe(raw), desired, err)
		}
		out[i] = obj
	}
	return out, nil
}

// writeConverted answers a successful review, writing each converted
// object as it is (valid JSON: each was decoded, or made by
// json.Marshal) rather than marshaling the review into one more copy.
func writeConverted(w http.ResponseWriter, version, uid string, objects [][]byte) {
	v, _ := json.Marshal(version)
	u, _ := json.Marshal(uid)
	result, _ := json.Marshal(kube.Status{Status: "Success"})
	head := fmt.Appendf(nil, `{"apiVersion":%s,"kind":"ConversionReview","response":{"uid":%s,"convertedObjects":[`, v, u)
	tail := fmt.Appendf(nil, `],"result":%s}}`, result)
	size := len(head) + len(tail) + max(len(objects)-1, 0)
	for _, obj := range objects {
		size += len(obj)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(size))
	w.WriteHeader(http.StatusOK)
	// A write error is the API server's timeout or a cut connection:
	// nobody to tell.
	if _, err := w.Write(head); err != nil {
		return
	}
	for i, obj := range objects {
		if i > 0 {
			if _, err := w.Write([]byte{','}); err != nil {
				return
			}
		}
		if _, err := w.Write(obj); err != nil {
			return
		}
	}
	_, _ = w.Write(tail)
}
