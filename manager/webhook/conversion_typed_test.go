// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// Gadgets are served as example.com/v2 (the hub, typed), v1 (typed) and
// v1alpha1 (unstructured).
type whGadget struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            struct {
		Replicas int  `json:"replicas"`
		Paused   bool `json:"paused,omitempty"`
	} `json:"spec"`
	Status whGadgetStatus `json:"status,omitzero"`
}

type whGadgetStatus struct {
	Ready int `json:"ready"`
}

func (*whGadget) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Gadget"}
}

type whGadgetV1 struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            struct {
		Replicas int    `json:"replicas"`
		State    string `json:"state"` // "Running" or "Paused"
	} `json:"spec"`
	Status whGadgetStatus `json:"status,omitzero"`
}

func (*whGadgetV1) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}
}

func (g *whGadgetV1) ConvertTo(hub *whGadget) error {
	switch g.Spec.State {
	case "Running", "":
	case "Paused":
		hub.Spec.Paused = true
	default:
		return fmt.Errorf("spec.state %q: want Running or Paused", g.Spec.State)
	}
	hub.Spec.Replicas, hub.Status = g.Spec.Replicas, g.Status
	return nil
}

func (g *whGadgetV1) ConvertFrom(hub *whGadget) error {
	g.Spec.Replicas, g.Status, g.Spec.State = hub.Spec.Replicas, hub.Status, "Running"
	if hub.Spec.Paused {
		g.Spec.State = "Paused"
	}
	return nil
}

func whGadgetConversion(t *testing.T) *webhook.Conversion {
	t.Helper()
	var conv webhook.Conversion
	if err := webhook.AddSpoke[whGadgetV1, whGadget](&conv); err != nil {
		t.Fatalf("AddSpoke() error: %v", err)
	}
	hub := (&whGadget{}).GroupVersionKind()
	err := conv.AddUnstructuredSpoke(hub, "v1alpha1",
		func(src, dst *kube.Unstructured) error { // v1alpha1 -> v2
			count, _ := src.Field("spec", "count")
			dst.SetField(count, "spec", "replicas")
			if status, ok := src.Field("status"); ok {
				dst.SetField(status, "status")
			}
			return nil
		},
		func(src, dst *kube.Unstructured) error { // v2 -> v1alpha1
			if paused, _ := src.Field("spec", "paused"); paused == true {
				return errors.New("v1alpha1 cannot say paused")
			}
			replicas, _ := src.Field("spec", "replicas")
			dst.SetField(replicas, "spec", "count")
			if status, ok := src.Field("status"); ok {
				dst.SetField(status, "status")
			}
			return nil
		})
	if err != nil {
		t.Fatalf("AddUnstructuredSpoke() error: %v", err)
	}
	return &conv
}

// whConvert posts a ConversionReview to url and returns the response.
func whConvert(t *testing.T, post func(body string) (int, []byte), desired string, objects ...string) (status, message string, out []string) {
	t.Helper()
	body := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"c-1","desiredAPIVersion":%q,"objects":[%s]}}`,
		desired, strings.Join(objects, ","))
	code, answer := post(body)
	var review struct {
		APIVersion, Kind string
		Response         struct {
			UID              string            `json:"uid"`
			ConvertedObjects []json.RawMessage `json:"convertedObjects"`
			Result           struct{ Status, Message string }
		}
	}
	if code != 200 || json.Unmarshal(answer, &review) != nil || review.Kind != "ConversionReview" || review.Response.UID != "c-1" {
		t.Fatalf("conversion answer = %d %s, want 200 and a ConversionReview for uid c-1", code, answer)
	}
	for _, o := range review.Response.ConvertedObjects {
		out = append(out, string(o))
	}
	return review.Response.Result.Status, review.Response.Result.Message, out
}

func TestWebhookTypedConversion(t *testing.T) {
	pki := newWebhookPKI(t)
	srv, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: pki.Dir})
	if err != nil {
		t.Fatal(err)
	}
	srv.Register(webhook.ConversionPath, whGadgetConversion(t))
	url := startWebhookServer(t, srv) + "/convert?timeout=30s"
	client := pki.Client()
	post := func(body string) (int, []byte) {
		resp, err := client.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("POST %s error: %v", url, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}

	v1 := `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g","namespace":"default","uid":"u1","resourceVersion":"7","labels":{"a":"b"}},"spec":{"replicas":3,"state":"Paused"},"status":{"ready":2}}`
	alpha := `{"apiVersion":"example.com/v1alpha1","kind":"Gadget","metadata":{"name":"h","uid":"u2"},"spec":{"count":5}}`

	status, msg, out := whConvert(t, post, "example.com/v2", v1, alpha)
	if status != "Success" || len(out) != 2 {
		t.Fatalf("convert to v2 = %s %q %v, want Success with 2 objects", status, msg, out)
	}
	var hub whGadget
	whMustJSON(t, out[0], &hub)
	if hub.APIVersion != "example.com/v2" || hub.Kind != "Gadget" || hub.Name != "g" || hub.UID != "u1" || hub.ResourceVersion != "7" ||
		hub.Labels["a"] != "b" || hub.Spec.Replicas != 3 || !hub.Spec.Paused || hub.Status.Ready != 2 {
		t.Errorf("v1 -> v2 = %s", out[0])
	}
	var hub2 whGadget
	whMustJSON(t, out[1], &hub2)
	if hub2.APIVersion != "example.com/v2" || hub2.Name != "h" || hub2.Spec.Replicas != 5 {
		t.Errorf("v1alpha1 -> v2 = %s", out[1])
	}

	// Round trips come back equal.
	for _, tt := range []struct{ obj, through string }{
		{v1, "example.com/v2"}, {alpha, "example.com/v2"}, {alpha, "example.com/v1"},
	} {
		var orig any
		whMustJSON(t, tt.obj, &orig)
		origVersion := orig.(map[string]any)["apiVersion"].(string)
		_, _, there := whConvert(t, post, tt.through, tt.obj)
		status, msg, back := whConvert(t, post, origVersion, there...)
		var got any
		if status != "Success" || len(back) != 1 {
			t.Fatalf("%s through %s: %s %q", origVersion, tt.through, status, msg)
		}
		whMustJSON(t, back[0], &got)
		if !reflect.DeepEqual(got, orig) {
			t.Errorf("%s -> %s -> back = %s, want %s", origVersion, tt.through, back[0], tt.obj)
		}
	}

	// A failure names the object and returns no objects.
	status, msg, out = whConvert(t, post, "example.com/v1alpha1", alpha, v1)
	if status != "Failure" || out != nil || !strings.Contains(msg, "convert object 1 (Gadget default/g)") || !strings.Contains(msg, "v1alpha1 cannot say paused") {
		t.Errorf("convert paused to v1alpha1 = %s %q %v, want Failure naming object 1", status, msg, out)
	}
}

func TestWebhookConversionSpokeErrors(t *testing.T) {
	var conv webhook.Conversion
	if err := webhook.AddSpoke[whGadgetV1, whGadget](&conv); err != nil {
		t.Fatal(err)
	}
	if err := webhook.AddSpoke[whGadgetV1, whGadget](&conv); err == nil || !strings.Contains(err.Error(), "already added") {
		t.Errorf("second AddSpoke() = %v, want already added", err)
	}
	noop := func(_, _ *kube.Unstructured) error { return nil }
	other := kube.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}
	if err := conv.AddUnstructuredSpoke(other, "v3", noop, noop); err == nil || !strings.Contains(err.Error(), "the hub of Gadget is v2") {
		t.Errorf("AddUnstructuredSpoke() with another hub = %v, want an error", err)
	}
	if err := conv.AddUnstructuredSpoke(other, "v3", nil, noop); err == nil {
		t.Errorf("AddUnstructuredSpoke(nil func) = nil, want an error")
	}
}

// TestWebhookConversionLimits: MaxRequestBytes bounds a review; a larger
// one is refused, unread, with 413 and a message the API server shows.
func TestWebhookConversionLimits(t *testing.T) {
	conv := whGadgetConversion(t)
	conv.MaxRequestBytes = 1024
	gadget := `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"replicas":2}}`
	post := func(body string) (int, []byte) {
		req := httptest.NewRequest("POST", "/convert", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		conv.ServeHTTP(rec, req)
		return rec.Code, rec.Body.Bytes()
	}
	if status, msg, out := whConvert(t, post, "example.com/v2", gadget); status != "Success" || len(out) != 1 {
		t.Errorf("small review: %s %q, %d objects; want Success with one", status, msg, len(out))
	}
	big := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"c-1","desiredAPIVersion":"example.com/v2","objects":[%s]}}`,
		strings.Repeat(gadget+",", 20)+gadget)
	code, answer := post(big)
	if code != 413 || !strings.Contains(string(answer), "larger than the limit of 1024 bytes") {
		t.Errorf("review of %d bytes = %d %s, want 413 naming the limit", len(big), code, answer)
	}
}

// TestWebhookTypedConversionKeysExact: a typed spoke decodes the object
// with keys matched exactly, as the API server reads it: "replicaſ" and
// "statuſ", which a custom resource that keeps unknown fields stores as
// such, are not converted into replicas and status, and "KIND" does not
// stand for the object's kind.
func TestWebhookTypedConversionKeysExact(t *testing.T) {
	conv := whGadgetConversion(t)
	post := func(body string) (int, []byte) {
		req := httptest.NewRequest("POST", "/convert", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		conv.ServeHTTP(rec, req)
		return rec.Code, rec.Body.Bytes()
	}
	forged := `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g","namespace":"default"},` +
		`"spec":{"replicas":3,"replicaſ":1000,"Replicas":1000,"STATE":"Paused"},"statuſ":{"ready":1000},"Status":{"ready":1000},` +
		`"KIND":"Nope","apiVersioN":"example.com/v9"}`
	status, msg, out := whConvert(t, post, "example.com/v2", forged)
	if status != "Success" || len(out) != 1 {
		t.Fatalf("convert to v2 = %s %q %v, want Success with 1 object", status, msg, out)
	}
	var hub whGadget
	whMustJSON(t, out[0], &hub)
	if hub.Spec.Replicas != 3 || hub.Spec.Paused || hub.Status.Ready != 0 {
		t.Errorf("v1 -> v2 of %s = %s, want replicas 3, not paused, no status", forged, out[0])
	}
}
