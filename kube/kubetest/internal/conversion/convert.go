// SPDX-License-Identifier: Apache-2.0

package conversion

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/admission"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// Convert converts o, an object of the webhook's kind, to apiVersion
// through the webhook, in a ConversionReview of its own, as the real
// server converts each object it reads or writes (a list's items one
// review each). An object already at apiVersion is returned as it is,
// without a call. The result is a new object: the webhook's, with o's
// metadata but for the labels and annotations the webhook gave it. An
// error's text is the real server's; the caller owns o and the result.
func (w *Webhook) Convert(ctx context.Context, o obj, apiVersion string) (obj, error) {
	from := unstructured.String(o, "apiVersion")
	if from == apiVersion {
		return o, nil
	}
	gvk := gvkString(from, unstructured.String(o, "kind"))
	version, ok := w.reviewVersion()
	if !ok {
		return nil, errors.New("no supported conversion review versions")
	}
	uid := newUID()
	body, err := w.call(ctx, review(version, uid, apiVersion, o))
	if err != nil {
		return nil, fmt.Errorf("conversion webhook for %s failed: %v", gvk, err)
	}
	converted, err := convertedObjects(version, uid, body)
	if err != nil {
		return nil, fmt.Errorf("conversion webhook for %s failed: %v", gvk, err)
	}
	if len(converted) != 1 {
		return nil, fmt.Errorf("conversion webhook for %s returned %d objects, expected 1", gvk, len(converted))
	}
	out, err := unstructured.DecodeObjectOrNull(converted[0])
	if err != nil || out == nil {
		return nil, fmt.Errorf("conversion webhook for %s failed: %v", gvk, cmpErr(err))
	}
	if got := unstructured.String(out, "apiVersion"); got != apiVersion {
		return nil, fmt.Errorf("conversion webhook for %s returned invalid object at index 0: invalid groupVersion (expected %s, received %s)", gvk, apiVersion, got)
	}
	if want, got := unstructured.String(o, "kind"), unstructured.String(out, "kind"); want != got {
		return nil, fmt.Errorf("conversion webhook for %s returned invalid object at index 0: invalid kind (expected %s, received %s)", gvk, want, got)
	}
	if err := sameIdentity(o, out); err != nil {
		return nil, fmt.Errorf("conversion webhook for %s returned invalid object: %v", gvk, err)
	}
	if err := restoreMetadata(o, out); err != nil {
		return nil, fmt.Errorf("conversion webhook for %s returned invalid metadata: %v", gvk, err)
	}
	return out, nil
}

// call posts a review to the webhook; an error is client-go's, without
// the prefix the admission webhooks' errors carry.
func (w *Webhook) call(ctx context.Context, review []byte) ([]byte, error) {
	body, err := admission.Post(ctx, &w.Client, w.Resolve, review)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "failed to call webhook: "))
	}
	return body, nil
}

// review is the ConversionReview sent: the request, and an empty
// response as the real server sends it.
func review(version, uid, apiVersion string, o obj) []byte {
	var b bytes.Buffer
	b.WriteString(`{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/` + version + `","request":{"uid":`)
	encode.String(&b, uid)
	b.WriteString(`,"desiredAPIVersion":`)
	encode.String(&b, apiVersion)
	b.WriteString(`,"objects":[`)
	b.Write(encode.Object(withoutResourceVersion(o)))
	b.WriteString(`]},"response":{"uid":"","convertedObjects":null,"result":{"metadata":{}}}}`)
	return b.Bytes()
}

// withoutResourceVersion is o without metadata.resourceVersion, as the
// real server sends objects (their stored form has none); o is unchanged.
func withoutResourceVersion(o obj) obj {
	meta := metadataOf(o)
	if _, has := meta["resourceVersion"]; !has {
		return o
	}
	out, m := make(obj, len(o)), make(obj, len(meta))
	for k, v := range o {
		out[k] = v
	}
	for k, v := range meta {
		if k != "resourceVersion" {
			m[k] = v
		}
	}
	out["metadata"] = m
	return out
}

// convertedObjects reads the webhook's answer as the real server checks
// it: a v1 review must be a v1 ConversionReview answering uid; either
// must say Success.
func convertedObjects(version, uid string, body []byte) ([]json.RawMessage, error) {
	var rv struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Response   *struct {
			UID              string            `json:"uid"`
			ConvertedObjects []json.RawMessage `json:"convertedObjects"`
			Result           struct {
				Status  string `json:"status"`
				Message string `json:"message"`
			} `json:"result"`
		} `json:"response"`
	}
	if err := json.Unmarshal(body, &rv); err != nil {
		return nil, err
	}
	if version == "v1" && (rv.APIVersion != "apiextensions.k8s.io/v1" || rv.Kind != "ConversionReview") {
		return nil, fmt.Errorf("expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got %s", gvkString(rv.APIVersion, rv.Kind))
	}
	r := rv.Response
	switch {
	case r == nil:
		return nil, errors.New("no response provided")
	case version == "v1" && r.UID != uid:
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.UID)
	case r.Result.Status != "Success" && r.Result.Message != "":
		return nil, errors.New(r.Result.Message)
	case r.Result.Status != "Success":
		return nil, fmt.Errorf("response.result.status was '%s', not 'Success'", r.Result.Status)
	}
	return r.ConvertedObjects, nil
}

// gvkString is a GroupVersionKind as apimachinery prints it.
func gvkString(apiVersion, kind string) string {
	if !strings.Contains(apiVersion, "/") {
		apiVersion = "/" + apiVersion
	}
	return apiVersion + ", Kind=" + kind
}

func cmpErr(err error) error {
	if err == nil {
		return errors.New("the converted object is null")
	}
	return err
}

// newUID is a random UUID (version 4), a review's uid.
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
