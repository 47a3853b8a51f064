// SPDX-License-Identifier: Apache-2.0

package conversion

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// answerFunc answers a review's request; it gets the decoded review.
type answerFunc func(review map[string]any) any

// hookServer is a TLS webhook on loopback that answers with answer and
// keeps the last review and query it got.
type hookServer struct {
	mu     sync.Mutex
	review map[string]any
	query  string
	calls  int
}

func startHook(t *testing.T, answer answerFunc) (*Webhook, *hookServer) {
	t.Helper()
	h := &hookServer{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var rv map[string]any
		if err := json.Unmarshal(body, &rv); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.review, h.query = rv, r.URL.RawQuery
		h.calls++
		h.mu.Unlock()
		_ = json.NewEncoder(w).Encode(answer(rv))
	}))
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	w := Parse(crdWith(map[string]any{"url": srv.URL + "/convert"}, "v1"), nil, 37)
	w.Client.CABundle = ca
	return w, h
}

// crdWith is a CRD of Shapes converted by a webhook at clientConfig.
func crdWith(clientConfig map[string]any, reviewVersions ...any) obj {
	return obj{"metadata": obj{"name": "shapes.example.com"}, "spec": obj{
		"group": "example.com", "names": obj{"plural": "shapes", "kind": "Shape"},
		"conversion": obj{"strategy": "Webhook", "webhook": obj{"clientConfig": clientConfig, "conversionReviewVersions": reviewVersions}},
	}}
}

// shapeV1 is a stored Shape at example.com/v1.
func shapeV1() obj {
	return obj{"apiVersion": "example.com/v1", "kind": "Shape", "metadata": obj{"name": "a", "namespace": "ns", "uid": "u1",
		"resourceVersion": "42", "generation": int64(1), "labels": obj{"keep": "yes"}}, "spec": obj{"size": int64(3)}}
}

// converting answers as a webhook that converts: each object gets the
// desired apiVersion, spec.size becomes spec.replicas, then edit runs on it.
func converting(edit func(o map[string]any)) answerFunc {
	return func(rv map[string]any) any {
		req := rv["request"].(map[string]any)
		objects := req["objects"].([]any)
		for _, it := range objects {
			o := it.(map[string]any)
			o["apiVersion"] = req["desiredAPIVersion"]
			spec := o["spec"].(map[string]any)
			spec["replicas"] = spec["size"]
			delete(spec, "size")
			if edit != nil {
				edit(o)
			}
		}
		return map[string]any{"apiVersion": rv["apiVersion"], "kind": "ConversionReview",
			"response": map[string]any{"uid": req["uid"], "convertedObjects": objects, "result": map[string]any{"status": "Success"}}}
	}
}

func TestConvertSendsReview(t *testing.T) {
	w, h := startHook(t, converting(nil))
	out, err := w.Convert(context.Background(), shapeV1(), "example.com/v2")
	if err != nil {
		t.Fatal(err)
	}
	if out["apiVersion"] != "example.com/v2" || out["spec"].(obj)["replicas"] != float64(3) && out["spec"].(obj)["replicas"] != int64(3) {
		t.Errorf("Convert = %v, want example.com/v2 with spec.replicas 3", out)
	}
	if rv := out["metadata"].(obj)["resourceVersion"]; rv != "42" {
		t.Errorf("converted resourceVersion = %v, want the original's 42", rv)
	}
	req := h.review["request"].(map[string]any)
	sent := req["objects"].([]any)
	switch {
	case h.review["apiVersion"] != "apiextensions.k8s.io/v1" || h.review["kind"] != "ConversionReview":
		t.Errorf("review %v %v, want apiextensions.k8s.io/v1 ConversionReview", h.review["apiVersion"], h.review["kind"])
	case req["desiredAPIVersion"] != "example.com/v2" || req["uid"] == "" || len(sent) != 1:
		t.Errorf("request %v, want a uid, desiredAPIVersion example.com/v2 and one object", req)
	case h.query != "timeout=30s":
		t.Errorf("query %q, want timeout=30s", h.query)
	}
	if _, has := sent[0].(map[string]any)["metadata"].(map[string]any)["resourceVersion"]; has {
		t.Errorf("object sent with its resourceVersion, want it without (as the real server sends it)")
	}
}

func TestConvertSameVersionCallsNothing(t *testing.T) {
	w, h := startHook(t, converting(nil))
	o := shapeV1()
	if out, err := w.Convert(context.Background(), o, "example.com/v1"); err != nil || out["spec"].(obj)["size"] != int64(3) {
		t.Errorf("Convert to its own version = %v, %v; want it unchanged", out, err)
	}
	if h.calls != 0 {
		t.Errorf("webhook called %d times for an object at the desired version, want 0", h.calls)
	}
	var nilHook *Webhook
	if out, err := nilHook.Read(o, "example.com/v2", false); err != nil || out["apiVersion"] != "example.com/v1" {
		t.Errorf("Read on a nil Webhook = %v, %v; want the object as it is", out, err)
	}
}

func TestConvertKeepsMetadataButLabelsAndAnnotations(t *testing.T) {
	w, _ := startHook(t, converting(func(o map[string]any) {
		meta := o["metadata"].(map[string]any)
		meta["labels"] = map[string]any{"added": "yes"}
		meta["annotations"] = map[string]any{"note": "converted"}
		meta["generation"] = 9
		meta["finalizers"] = []any{"example.com/f"}
	}))
	out, err := w.Convert(context.Background(), shapeV1(), "example.com/v2")
	if err != nil {
		t.Fatal(err)
	}
	meta := out["metadata"].(obj)
	got, _ := json.Marshal(meta)
	want := `{"annotations":{"note":"converted"},"generation":1,"labels":{"added":"yes"},"name":"a","namespace":"ns","resourceVersion":"42","uid":"u1"}`
	if string(got) != want {
		t.Errorf("converted metadata = %s, want %s", got, want)
	}
}

func TestConvertRefusesBadAnswers(t *testing.T) {
	const gvk = "example.com/v1, Kind=Shape"
	set := func(path string, v any) answerFunc {
		return converting(func(o map[string]any) {
			m := o
			parts := strings.Split(path, ".")
			for _, p := range parts[:len(parts)-1] {
				m = m[p].(map[string]any)
			}
			m[parts[len(parts)-1]] = v
		})
	}
	review := func(edit func(resp map[string]any)) answerFunc {
		return func(rv map[string]any) any {
			out := converting(nil)(rv).(map[string]any)
			edit(out["response"].(map[string]any))
			return out
		}
	}
	for _, tc := range []struct {
		name   string
		answer answerFunc
		want   string
	}{
		{"failure with a message", review(func(r map[string]any) { r["result"] = map[string]any{"status": "Failure", "message": "no way"} }),
			"conversion webhook for " + gvk + " failed: no way"},
		{"failure without one", review(func(r map[string]any) { r["result"] = map[string]any{"status": "Failure"} }),
			"conversion webhook for " + gvk + " failed: response.result.status was 'Failure', not 'Success'"},
		{"another uid", review(func(r map[string]any) { r["uid"] = "other" }),
			"conversion webhook for " + gvk + ` failed: expected response.uid=`},
		{"no objects", review(func(r map[string]any) { r["convertedObjects"] = []any{} }),
			"conversion webhook for " + gvk + " returned 0 objects, expected 1"},
		{"another version", set("apiVersion", "example.com/v3"),
			"conversion webhook for " + gvk + " returned invalid object at index 0: invalid groupVersion (expected example.com/v2, received example.com/v3)"},
		{"another kind", set("kind", "Circle"),
			"conversion webhook for " + gvk + " returned invalid object at index 0: invalid kind (expected Shape, received Circle)"},
		{"renamed", set("metadata.name", "b"),
			"conversion webhook for " + gvk + " returned invalid object: must have the same name: a != b"},
		{"moved", set("metadata.namespace", "elsewhere"),
			"conversion webhook for " + gvk + " returned invalid object: must have the same namespace: ns != elsewhere"},
		{"another uid in the object", set("metadata.uid", "u2"),
			"conversion webhook for " + gvk + " returned invalid object: must have the same UID: u1 != u2"},
		{"a label not a string", set("metadata.labels", map[string]any{"n": 1}),
			"conversion webhook for " + gvk + " returned invalid metadata: metadata.labels[n] must be a string, but is int64 in converted object"},
		{"metadata not an object", set("metadata", "x"),
			"conversion webhook for " + gvk + " returned invalid object: must have the same name: a != "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := startHook(t, tc.answer)
			_, err := w.Convert(context.Background(), shapeV1(), "example.com/v2")
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Convert = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestConvertReviewVersion(t *testing.T) {
	w, h := startHook(t, func(rv map[string]any) any {
		// A v1beta1 answer is not checked for its kind or uid.
		out := converting(nil)(rv).(map[string]any)
		out["kind"], out["response"].(map[string]any)["uid"] = "", ""
		return out
	})
	w.ReviewVersions = []string{"v9", "v1beta1", "v1"}
	if _, err := w.Convert(context.Background(), shapeV1(), "example.com/v2"); err != nil {
		t.Fatalf("Convert with a v1beta1 review = %v", err)
	}
	if h.review["apiVersion"] != "apiextensions.k8s.io/v1beta1" {
		t.Errorf("review apiVersion = %v, want apiextensions.k8s.io/v1beta1, the first known of the CRD's", h.review["apiVersion"])
	}
}

// TestReadAnswers checks the Status a client gets when a conversion
// fails, per minor and per kind of request.
func TestReadAnswers(t *testing.T) {
	failing := func(rv map[string]any) any {
		out := converting(nil)(rv).(map[string]any)
		out["response"].(map[string]any)["result"] = map[string]any{"status": "Failure", "message": "no way"}
		return out
	}
	const msg = "conversion webhook for example.com/v1, Kind=Shape failed: no way"
	const corrupt = "StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=42: " + msg
	for _, tc := range []struct {
		name                  string
		minor                 int
		inList, write         bool
		code                  int32
		reason, message, keys string
	}{
		{"write", 37, false, true, 500, "", msg, ""},
		{"get before 1.37", 36, false, false, 500, "", msg, ""},
		{"list before 1.37", 33, true, false, 500, "", msg, ""},
		{"get", 37, false, false, 500, kube.ReasonInternalError,
			"Internal error occurred: " + strings.Replace(corrupt, "%s", "/example.com/shapes/ns/a", 1), ""},
		{"list", 37, true, false, 500, "StorageReadError",
			"failed to read one or more shapes.example.com from the storage: " + strings.Replace(corrupt, "%s", "/registry/example.com/shapes/ns/a", 1),
			"/registry/example.com/shapes/ns/a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := startHook(t, failing)
			w.Minor = tc.minor
			var err *kube.StatusError
			if tc.write {
				_, err = w.ToStorage(shapeV1(), "example.com/v2")
			} else {
				_, err = w.Read(shapeV1(), "example.com/v2", tc.inList)
			}
			if err == nil || err.Status.Code != tc.code || err.Status.Reason != tc.reason || err.Status.Message != tc.message {
				t.Fatalf("answer = %+v, want %d %q %q", err, tc.code, tc.reason, tc.message)
			}
			if tc.keys != "" && (err.Status.Details == nil || len(err.Status.Details.Causes) != 1 || err.Status.Details.Causes[0].Field != tc.keys) {
				t.Errorf("details = %+v, want one cause for the field %s", err.Status.Details, tc.keys)
			}
		})
	}
}

func TestParse(t *testing.T) {
	none := crdWith(map[string]any{"url": "https://x"}, "v1")
	none["spec"].(obj)["conversion"].(obj)["strategy"] = "None"
	if w := Parse(none, nil, 37); w != nil {
		t.Errorf("Parse of strategy None = %+v, want nil", w)
	}
	w := Parse(crdWith(map[string]any{"service": map[string]any{"namespace": "ns", "name": "conv", "path": "/convert"}}, "v1beta1", "v1"), nil, 33)
	if w == nil || w.Client.Service == nil || w.Client.Service.Port != 443 || w.Client.Service.Path != "/convert" || w.Client.Timeout != Timeout ||
		strings.Join(w.ReviewVersions, ",") != "v1beta1,v1" || w.Group != "example.com" || w.Plural != "shapes" || w.Kind != "Shape" || w.Minor != 33 {
		t.Errorf("Parse = %+v, want the service on port 443, a 30 s timeout, review versions v1beta1,v1", w)
	}
}
