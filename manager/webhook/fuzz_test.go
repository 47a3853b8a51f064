// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// sentUID is the uid a review says, read as the handlers read it.
func sentUID(body []byte) string {
	var r struct {
		Request *struct {
			UID string `json:"uid"`
		} `json:"request"`
	}
	_ = json.Unmarshal(body, &r) // a type error elsewhere leaves the uid
	if r.Request == nil {
		return ""
	}
	return r.Request.UID
}

// fuzzPost sends body to h with the given query and checks the form of
// any answer: JSON, 200 with a review or 4xx with a Status saying the
// same code. It returns the answer when it is 200.
func fuzzPost(t *testing.T, h http.Handler, body []byte, query string) []byte {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/review", bytes.NewReader(body))
	req.URL.RawQuery = query
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("answer to %q: %d with Content-Type %q: %s", body, rec.Code, ct, rec.Body)
	}
	if rec.Code == http.StatusOK {
		return rec.Body.Bytes()
	}
	var st kube.Status
	if rec.Code < 400 || rec.Code > 499 || json.Unmarshal(rec.Body.Bytes(), &st) != nil ||
		st.Kind != "Status" || st.Status != "Failure" || int(st.Code) != rec.Code || st.Message == "" {
		t.Fatalf("answer to %q: %d %s, want 200 or a 4xx Status", body, rec.Code, rec.Body)
	}
	if uid := sentUID(body); uid != "" {
		t.Fatalf("answer to %q, which has uid %q: %d %s, want a review", body, uid, rec.Code, rec.Body)
	}
	return nil
}

// FuzzAdmission sends arbitrary bodies (and timeout parameters) to an
// admission handler. A review with a uid gets a review back in the
// version asked (v1 otherwise) with that uid; a denial carries a failure
// status; a patch applies to the object sent and gives what the handler
// meant; anything else gets a 4xx Status. The handler admits, denies,
// patches (it adds a label) or panics, as the object's name says.
func FuzzAdmission(f *testing.F) {
	for _, s := range []struct{ body, query string }{
		{reviewCreate, "timeout=10s"},
		{strings.Replace(reviewCreate, `"name":"settings","namespace"`, `"name":"deny","namespace"`, 1), ""},
		{strings.Replace(reviewCreate, `"name":"settings","namespace"`, `"name":"panic","namespace"`, 1), ""},
		{strings.Replace(reviewCreate, `"name":"settings","namespace"`, `"name":"patch","namespace"`, 1), "timeout=1ms"},
		{strings.Replace(reviewCreate, `admission.k8s.io/v1"`, `admission.k8s.io/v1beta1"`, 1), ""},
		{`{"request":{"uid":"u","name":"patch","object":{"metadata":{"labels":{"a/b":"c"}}}}}`, "timeout=-1s"},
		{`{"request":{"uid":"u","name":"patch","object":[1]}}`, ""},
		{`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","name":7}}`, ""},
		{`{"request":{"uid":7}}`, ""},
		{`{"request":null}`, ""},
		{`[]`, ""},
		{``, ""},
	} {
		f.Add([]byte(s.body), s.query)
	}
	h := webhook.Admission(func(ctx context.Context, req *webhook.AdmissionRequest) webhook.AdmissionResponse {
		switch req.Name {
		case "deny":
			return webhook.Denied(errors.New("denied"), []string{"w"})
		case "panic":
			panic("handler panics")
		case "patch":
			ops, err := labelPatch(req.Object)
			if err != nil {
				return webhook.Errored(http.StatusBadRequest, err)
			}
			resp, err := webhook.Patched(ops, nil)
			if err != nil {
				return webhook.Errored(http.StatusInternalServerError, err)
			}
			return resp
		}
		return webhook.Allowed(nil)
	})
	f.Fuzz(func(t *testing.T, body []byte, query string) {
		out := fuzzPost(t, h, body, query)
		if out == nil {
			return
		}
		var review webhook.AdmissionReview
		if err := json.Unmarshal(out, &review); err != nil || review.Response == nil || review.Kind != "AdmissionReview" {
			t.Fatalf("answer to %q: %s is not a review with a response (%v)", body, out, err)
		}
		var asked webhook.AdmissionReview
		_ = json.Unmarshal(body, &asked)
		wantVersion := webhook.AdmissionV1
		if asked.APIVersion == webhook.AdmissionV1beta1 && asked.Kind == "AdmissionReview" {
			wantVersion = webhook.AdmissionV1beta1
		}
		resp := review.Response
		if review.APIVersion != wantVersion || resp.UID != sentUID(body) || resp.UID == "" {
			t.Fatalf("answer to %q: %s %q, want %s and uid %q", body, review.APIVersion, resp.UID, wantVersion, sentUID(body))
		}
		if !resp.Allowed && (resp.Result == nil || resp.Result.Code < 400 || resp.Result.Message == "" || resp.Result.Status != "Failure") {
			t.Fatalf("answer to %q: denied without a failure status: %s", body, out)
		}
		if resp.Patch == nil {
			return
		}
		if resp.PatchType != webhook.PatchTypeJSONPatch || !resp.Allowed {
			t.Fatalf("answer to %q: patch of type %q, allowed %v", body, resp.PatchType, resp.Allowed)
		}
		got, err := jsonpatch.Apply(asked.Request.Object, resp.Patch)
		if err != nil {
			t.Fatalf("answer to %q: patch %s does not apply to the object: %v", body, resp.Patch, err)
		}
		want, _ := labeled(asked.Request.Object)
		if !jsonEqual(got, want) {
			t.Fatalf("answer to %q: patch %s gives %s, want %s", body, resp.Patch, got, want)
		}
	})
}

// labeled returns obj with the label patched=true, or an error when obj
// is not an object whose metadata and labels are objects.
func labeled(obj []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	var o any
	if err := dec.Decode(&o); err != nil {
		return nil, err
	}
	m, ok := o.(map[string]any)
	if !ok {
		return nil, errors.New("the object is not a JSON object")
	}
	m = jsonpatch.DeepCopy(m).(map[string]any)
	meta, ok := m["metadata"].(map[string]any)
	if m["metadata"] == nil {
		meta, ok = map[string]any{}, true
	}
	if !ok {
		return nil, errors.New("metadata is not an object")
	}
	labels, ok := meta["labels"].(map[string]any)
	if meta["labels"] == nil {
		labels, ok = map[string]any{}, true
	}
	if !ok {
		return nil, errors.New("labels is not an object")
	}
	labels["patched"] = "true"
	meta["labels"], m["metadata"] = labels, meta
	return json.Marshal(m)
}

// labelPatch is the patch from obj to labeled(obj).
func labelPatch(obj []byte) ([]jsonpatch.Operation, error) {
	after, err := labeled(obj)
	if err != nil {
		return nil, err
	}
	var a, b any
	if err := json.Unmarshal(obj, &a); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(after, &b); err != nil {
		return nil, err
	}
	return jsonpatch.Create(a, b), nil
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return jsonpatch.Equal(x, y)
}

// FuzzConversion sends arbitrary bodies to the Conversions of
// widgetConversions (hub v1; v1beta1 writes spec.size as a string and
// fails on one that is not a number; v1alpha1 calls it spec.count and
// panics on 13). A review with a uid gets a review back with that uid; a
// success has one object per object sent, in order, each of the kind sent
// and the desired apiVersion (an object already there comes back as
// sent); a failure has a message and no objects. Anything else gets a 4xx
// Status.
func FuzzConversion(f *testing.F) {
	review := func(desired string, objects ...string) string { return conversionReview("r1", desired, objects...) }
	for _, s := range []string{
		review("example.com/v1", widget("v1beta1", "a", `{"size":"3"}`)),
		review("example.com/v1beta1", widget("v1", "a", `{"size":3}`), widget("v1alpha1", "b", `{"count":2}`), widget("v1beta1", "c", `{"size":"3","x":true}`)),
		review("example.com/v1alpha1", widget("v1", "a", `{"size":13}`)),
		review("example.com/v1", widget("v1beta1", "a", `{"size":"x"}`)),
		review("other.com/v1", widget("v1", "a", `{}`)),
		review("example.com/v2", widget("v1", "a", `{}`)),
		review("example.com/v1"),
		review("example.com/", `{"apiVersion":"example.com/v1","kind":"Gadget"}`),
		review("example.com/v1", `[]`, `null`, `"s"`),
		strings.Replace(review("v1", widget("v1", "a", "{}")), "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1", 1),
		`{"request":{"uid":"r","objects":{}}}`,
		`{"request":{"uid":""}}`,
		`not json`,
	} {
		f.Add([]byte(s))
	}
	c := widgetConversions(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		out := fuzzPost(t, c, body, "")
		if out == nil {
			return
		}
		var answer webhook.ConversionReview
		if err := json.Unmarshal(out, &answer); err != nil || answer.Response == nil || answer.Kind != "ConversionReview" {
			t.Fatalf("answer to %q: %s is not a review with a response (%v)", body, out, err)
		}
		var asked webhook.ConversionReview
		askedErr := json.Unmarshal(body, &asked)
		resp := answer.Response
		if resp.UID == "" || resp.UID != sentUID(body) {
			t.Fatalf("answer to %q: uid %q, want %q", body, resp.UID, sentUID(body))
		}
		switch resp.Result.Status {
		case "Failure":
			if resp.Result.Message == "" || resp.ConvertedObjects != nil {
				t.Fatalf("answer to %q: a failure without a message or with objects: %s", body, out)
			}
			return
		case "Success":
		default:
			t.Fatalf("answer to %q: result status %q", body, resp.Result.Status)
		}
		if askedErr != nil {
			t.Fatalf("answer to %q, which does not decode (%v): success", body, askedErr)
		}
		if len(resp.ConvertedObjects) != len(asked.Request.Objects) {
			t.Fatalf("answer to %q: %d objects for %d", body, len(resp.ConvertedObjects), len(asked.Request.Objects))
		}
		for i, raw := range resp.ConvertedObjects {
			var got, sent struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("answer to %q: object %d %s: %v", body, i, raw, err)
			}
			_ = json.Unmarshal(asked.Request.Objects[i], &sent)
			if got.APIVersion != asked.Request.DesiredAPIVersion || got.Kind != sent.Kind {
				t.Fatalf("answer to %q: object %d is %s %s, want %s %s", body, i, got.APIVersion, got.Kind, asked.Request.DesiredAPIVersion, sent.Kind)
			}
			if sent.APIVersion == asked.Request.DesiredAPIVersion && !bytes.Equal(raw, asked.Request.Objects[i]) {
				t.Fatalf("answer to %q: object %d was in the desired version and came back as %s", body, i, raw)
			}
		}
	})
}
