// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/manager/webhook"
)

// Widgets come in three versions of example.com: v1 (hub) has spec.size
// as a number; v1beta1 has spec.size as a string; v1alpha1 has spec.count.
func widgetConversions(t testing.TB) *webhook.Conversion {
	t.Helper()
	var c webhook.Conversion
	edit := func(fn func(spec map[string]any) error) webhook.ConvertFunc {
		return func(obj []byte) ([]byte, error) {
			var m map[string]any
			if err := json.Unmarshal(obj, &m); err != nil {
				return nil, err
			}
			spec, _ := m["spec"].(map[string]any)
			if spec == nil {
				spec = map[string]any{}
				m["spec"] = spec
			}
			if err := fn(spec); err != nil {
				return nil, err
			}
			m["apiVersion"] = "left/as-is-by-the-func"
			return json.Marshal(m)
		}
	}
	beta := webhook.RawSpoke{
		ToHub: edit(func(spec map[string]any) error {
			n, err := strconv.Atoi(fmt.Sprint(spec["size"]))
			if err != nil {
				return fmt.Errorf("spec.size: %w", err)
			}
			spec["size"] = n
			return nil
		}),
		FromHub: edit(func(spec map[string]any) error {
			spec["size"] = fmt.Sprint(spec["size"])
			return nil
		}),
	}
	alpha := webhook.RawSpoke{
		ToHub: edit(func(spec map[string]any) error {
			spec["size"], spec["count"] = spec["count"], nil
			delete(spec, "count")
			return nil
		}),
		FromHub: edit(func(spec map[string]any) error {
			if spec["size"] == float64(13) {
				panic("unlucky")
			}
			spec["count"] = spec["size"]
			delete(spec, "size")
			return nil
		}),
	}
	for v, s := range map[string]webhook.RawSpoke{"v1beta1": beta, "v1alpha1": alpha} {
		if err := c.AddRawSpoke("example.com", "Widget", "v1", v, s); err != nil {
			t.Fatalf("AddSpoke(%s) error: %v", v, err)
		}
	}
	return &c
}

func widget(version, name, spec string) string {
	return fmt.Sprintf(`{"apiVersion":"example.com/%s","kind":"Widget","metadata":{"name":%q,"namespace":"default","uid":"u-%s"},"spec":%s}`,
		version, name, name, spec)
}

func conversionReview(uid, desired string, objects ...string) string {
	return fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":%q,"desiredAPIVersion":%q,"objects":[%s]}}`,
		uid, desired, strings.Join(objects, ","))
}

func decodeConversion(t *testing.T, h http.Handler, body string) webhook.ConversionResponse {
	t.Helper()
	rec := post(h, "/convert", body)
	if rec.Code != 200 {
		t.Fatalf("answer = %d %s, want 200", rec.Code, rec.Body)
	}
	var review webhook.ConversionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil || review.Response == nil ||
		review.APIVersion != webhook.ConversionV1 || review.Kind != "ConversionReview" {
		t.Fatalf("answer %s is not a v1 ConversionReview with a response: %v", rec.Body, err)
	}
	return *review.Response
}

func TestWebhookConversion(t *testing.T) {
	c := widgetConversions(t)
	tests := []struct {
		name    string
		desired string
		objects []string
		want    []string // specs of the converted objects, in order
	}{
		{"spoke to hub", "example.com/v1", []string{widget("v1beta1", "a", `{"size":"3"}`)}, []string{`{"size":3}`}},
		{"hub to spoke", "example.com/v1beta1", []string{widget("v1", "a", `{"size":3}`)}, []string{`{"size":"3"}`}},
		{"spoke to spoke through the hub", "example.com/v1alpha1", []string{widget("v1beta1", "a", `{"size":"4"}`)}, []string{`{"count":4}`}},
		{"mixed versions in order", "example.com/v1beta1", []string{
			widget("v1", "a", `{"size":1}`), widget("v1alpha1", "b", `{"count":2}`), widget("v1beta1", "c", `{"size":"3","x":true}`)},
			[]string{`{"size":"1"}`, `{"size":"2"}`, `{"size":"3","x":true}`}},
		{"no objects", "example.com/v1", nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := decodeConversion(t, c, conversionReview("uid-1", tt.desired, tt.objects...))
			if r.UID != "uid-1" || r.Result.Status != "Success" || len(r.ConvertedObjects) != len(tt.want) {
				t.Fatalf("response = %+v, want uid-1, Success, %d objects", r, len(tt.want))
			}
			for i, raw := range r.ConvertedObjects {
				var got struct {
					APIVersion string `json:"apiVersion"`
					Kind       string `json:"kind"`
					Metadata   struct{ Name, UID string }
					Spec       json.RawMessage `json:"spec"`
				}
				mustUnmarshal(t, string(raw), &got)
				var spec, want any
				mustUnmarshal(t, string(got.Spec), &spec)
				mustUnmarshal(t, tt.want[i], &want)
				if got.APIVersion != tt.desired || got.Kind != "Widget" || got.Metadata.UID == "" || fmt.Sprint(spec) != fmt.Sprint(want) {
					t.Errorf("object %d = %s, want %s with spec %s", i, raw, tt.desired, tt.want[i])
				}
			}
		})
	}
}

func TestWebhookConversionRoundTrip(t *testing.T) {
	c := widgetConversions(t)
	orig := widget("v1beta1", "a", `{"size":"7","extra":{"kept":[1,2]}}`)
	obj := orig
	for _, v := range []string{"example.com/v1", "example.com/v1alpha1", "example.com/v1", "example.com/v1beta1"} {
		r := decodeConversion(t, c, conversionReview("uid-rt", v, obj))
		if r.Result.Status != "Success" {
			t.Fatalf("convert to %s: %+v", v, r.Result)
		}
		obj = string(r.ConvertedObjects[0])
	}
	var got, want any
	mustUnmarshal(t, obj, &got)
	mustUnmarshal(t, orig, &want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after v1beta1 -> v1 -> v1alpha1 -> v1 -> v1beta1: %s, want %s", obj, orig)
	}
}

func TestWebhookConversionFailures(t *testing.T) {
	c := widgetConversions(t)
	tests := []struct {
		name    string
		desired string
		objects []string
		wantMsg string
	}{
		{"unknown kind", "example.com/v1", []string{`{"apiVersion":"example.com/v1beta1","kind":"Gadget","metadata":{"name":"g"}}`}, "no conversion for kind Gadget"},
		{"unknown source version", "example.com/v1", []string{widget("v2", "a", `{}`)}, "no conversion from version v2"},
		{"unknown desired version", "example.com/v3", []string{widget("v1", "a", `{}`)}, "no conversion to version v3"},
		{"other group", "other.com/v1", []string{widget("v1beta1", "a", `{}`)}, `group "example.com" cannot convert to group "other.com"`},
		{"func error names the object", "example.com/v1", []string{widget("v1", "ok", `{"size":1}`), widget("v1beta1", "bad", `{"size":"many"}`)},
			`convert object 1 (Widget default/bad) to example.com/v1: convert v1beta1 to hub v1: spec.size`},
		{"panic", "example.com/v1alpha1", []string{widget("v1", "a", `{"size":13}`)}, "conversion panicked: unlucky"},
		{"no kind", "example.com/v1", []string{`{"apiVersion":"example.com/v1beta1"}`}, "no apiVersion or kind"},
		{"not an object", "example.com/v1", []string{`[1]`}, "decode object"},
		{"no version", "", []string{widget("v1", "a", `{}`)}, "has no version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := decodeConversion(t, c, conversionReview("uid-f", tt.desired, tt.objects...))
			if r.UID != "uid-f" || r.Result.Status != "Failure" || r.ConvertedObjects != nil || !strings.Contains(r.Result.Message, tt.wantMsg) {
				t.Errorf("response = %+v, want uid-f, Failure containing %q, no objects", r, tt.wantMsg)
			}
		})
	}

	// Malformed reviews: a uid gets a Failure review, none gets an HTTP error.
	r := decodeConversion(t, c, `{"apiVersion":"apiextensions.k8s.io/v2","kind":"ConversionReview","request":{"uid":"x","objects":[]}}`)
	if r.UID != "x" || r.Result.Status != "Failure" || !strings.Contains(r.Result.Message, "apiextensions.k8s.io/v2") {
		t.Errorf("unknown version: response = %+v, want Failure with uid x", r)
	}
	if rec := post(c, "/convert", `{"request":{}}`); rec.Code != 400 {
		t.Errorf("no uid: answer = %d, want 400", rec.Code)
	}
}

func TestWebhookAddSpokeErrors(t *testing.T) {
	noop := func(b []byte) ([]byte, error) { return b, nil }
	ok := webhook.RawSpoke{ToHub: noop, FromHub: noop}
	var c webhook.Conversion
	if err := c.AddRawSpoke("g", "K", "v1", "v2", ok); err != nil {
		t.Fatalf("AddSpoke() error: %v", err)
	}
	tests := []struct {
		name                     string
		kind, hub, spoke, wanted string
		s                        webhook.RawSpoke
	}{
		{"other hub", "K", "v2", "v3", "the hub of K is v1", ok},
		{"twice", "K", "v1", "v2", "already added", ok},
		{"spoke is hub", "K", "v1", "v1", "is the hub version", ok},
		{"missing func", "K", "v1", "v3", "ToHub and FromHub", webhook.RawSpoke{ToHub: noop}},
		{"empty", "", "v1", "v3", "must not be empty", ok},
	}
	for _, tt := range tests {
		err := c.AddRawSpoke("g", tt.kind, tt.hub, tt.spoke, tt.s)
		if err == nil || !strings.Contains(err.Error(), tt.wanted) {
			t.Errorf("%s: AddSpoke() = %v, want an error containing %q", tt.name, err, tt.wanted)
		}
	}
}
