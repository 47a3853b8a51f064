// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// whWidget declares only the fields its defaulter needs; the objects the
// API server sends have more.
type whWidget struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            whWidgetSpec `json:"spec"`
}

type whWidgetSpec struct {
	Size  int      `json:"size"`
	Color string   `json:"color,omitempty"`
	Ports []whPort `json:"ports,omitempty"`
}

type whPort struct {
	Name string `json:"name"`
	Port int    `json:"port,omitempty"`
}

func (*whWidget) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
}

// whDefault is the defaulter under test.
func whDefault(_ context.Context, w *whWidget) error {
	if w.Spec.Size < 0 {
		return errors.New("spec.size must not be negative")
	}
	if w.Spec.Color == "" {
		w.Spec.Color = "blue"
	}
	if w.Spec.Size == 0 {
		w.Spec.Size = 1
	}
	for i := range w.Spec.Ports {
		if w.Spec.Ports[i].Port == 0 {
			w.Spec.Ports[i].Port = 80
		}
	}
	if w.Labels == nil {
		w.Labels = map[string]string{}
	}
	w.Labels["defaulted"] = "true"
	delete(w.Labels, "legacy")
	return nil
}

func TestWebhookDefaulter(t *testing.T) {
	pki := newWebhookPKI(t)
	srv, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: pki.Dir})
	if err != nil {
		t.Fatal(err)
	}
	path := webhook.RegisterDefaulter[whWidget](srv, webhook.DefaulterFunc[whWidget](whDefault))
	if path != "/mutate-example-com-v1-widget" {
		t.Errorf("RegisterDefaulter() = %q, want /mutate-example-com-v1-widget", path)
	}
	url := startWebhookServer(t, srv) + path + "?timeout=10s"
	client := pki.Client()
	kind := (&whWidget{}).GroupVersionKind()

	tests := []struct {
		name, op, object string
		// want is the object after the patch; empty means no patch.
		want string
	}{
		{"fields the type does not declare survive",
			"CREATE",
			`{"apiVersion":"example.com/v1","kind":"Widget",
			  "metadata":{"name":"w","namespace":"default","labels":{"legacy":"x","app":"a"},"managedFields":[{"manager":"kubectl"}],"futureField":1},
			  "spec":{"extra":{"deep":[1,2]},"ports":[{"name":"http","protocol":"TCP"},{"name":"admin","port":9000,"appProtocol":"h2"}]},
			  "status":{"ready":false}}`,
			`{"apiVersion":"example.com/v1","kind":"Widget",
			  "metadata":{"name":"w","namespace":"default","labels":{"app":"a","defaulted":"true"},"managedFields":[{"manager":"kubectl"}],"futureField":1},
			  "spec":{"extra":{"deep":[1,2]},"size":1,"color":"blue","ports":[{"name":"http","protocol":"TCP","port":80},{"name":"admin","port":9000,"appProtocol":"h2"}]},
			  "status":{"ready":false}}`},
		{"no spec at all",
			"UPDATE",
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`,
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"defaulted":"true"}},"spec":{"size":1,"color":"blue"}}`},
		{"nothing to change",
			"CREATE",
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"defaulted":"true"}},"spec":{"size":2,"color":"red","x":1}}`,
			``},
		{"delete is not defaulted", "DELETE", ``, ``},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := whReview{UID: fmt.Sprint("m-", i), Operation: tt.op, Kind: kind, Resource: "widgets", Object: tt.object}
			if tt.op == "DELETE" {
				r.OldObject = `{"metadata":{"name":"w"}}`
			}
			got := whPostReview(t, client, url, r.JSON())
			if got.UID != r.UID || !got.Allowed {
				t.Fatalf("response = %+v, want uid %s, allowed", got, r.UID)
			}
			if tt.want == "" {
				if got.Patch != nil || got.PatchType != "" {
					t.Errorf("patch = %s %q, want none", got.Patch, got.PatchType)
				}
				return
			}
			if got.PatchType != "JSONPatch" {
				t.Errorf("patchType = %q, want JSONPatch", got.PatchType)
			}
			ops, err := jsonpatch.ParseOperations(got.Patch)
			if err != nil {
				t.Fatalf("ParseOperations(%s) error: %v", got.Patch, err)
			}
			var original, want any
			whMustJSON(t, tt.object, &original)
			whMustJSON(t, tt.want, &want)
			patched, err := jsonpatch.ApplyValue(original, ops)
			if err != nil {
				t.Fatalf("ApplyValue(object, %s) error: %v", got.Patch, err)
			}
			if !jsonpatch.Equal(patched, want) {
				b, _ := json.Marshal(patched)
				t.Errorf("object patched with %s =\n%s\nwant\n%s", got.Patch, b, tt.want)
			}
			// Decoded into the type, the patched object is what Default made.
			var fromPatch, defaulted whWidget
			b, _ := json.Marshal(patched)
			whMustJSON(t, string(b), &fromPatch)
			whMustJSON(t, tt.object, &defaulted)
			if err := whDefault(context.Background(), &defaulted); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fromPatch, defaulted) {
				t.Errorf("patched object decodes as %+v, want the defaulted %+v", fromPatch, defaulted)
			}
		})
	}

	t.Run("an error denies", func(t *testing.T) {
		r := whReview{UID: "neg", Operation: "CREATE", Kind: kind, Object: `{"metadata":{"name":"w"},"spec":{"size":-1}}`}
		got := whPostReview(t, client, url, r.JSON())
		if got.UID != "neg" || got.Allowed || got.Patch != nil || got.Status == nil || got.Status.Code != 403 ||
			!strings.Contains(got.Status.Message, "spec.size must not be negative") {
			t.Errorf("response = %+v %+v, want denied 403 without a patch", got, got.Status)
		}
	})
	t.Run("a panic denies", func(t *testing.T) {
		h := webhook.MutatingFor[whWidget](webhook.DefaulterFunc[whWidget](func(context.Context, *whWidget) error {
			var m map[string]int
			m["boom"]++
			return nil
		}))
		mux, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: pki.Dir})
		if err != nil {
			t.Fatal(err)
		}
		mux.Register("/panics", h)
		base := startWebhookServer(t, mux)
		got := whPostReview(t, client, base+"/panics", whReview{UID: "p", Operation: "CREATE", Kind: kind, Object: `{}`}.JSON())
		if got.UID != "p" || got.Allowed || got.Status.Code != 500 || !strings.Contains(got.Status.Message, "panicked") {
			t.Errorf("response = %+v %+v, want denied 500", got, got.Status)
		}
	})
}

func whMustJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("json.Unmarshal(%s) error: %v", s, err)
	}
}

// TestWebhookDefaulterPastDeadline: a defaulter that changes every one of
// 10,000 ports and returns only when the API server's timeout has passed
// gets no patch computed: the review is answered at the deadline, denied
// with 504 Timeout (the API server, whose own deadline is no later, has
// stopped waiting and applies the failurePolicy).
func TestWebhookDefaulterPastDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := webhook.MutatingFor[whWidget](webhook.DefaulterFunc[whWidget](func(ctx context.Context, w *whWidget) error {
			for i := range w.Spec.Ports {
				w.Spec.Ports[i].Port = 80
			}
			<-ctx.Done() // slow, and not watching its context's error
			return nil
		}))
		var obj strings.Builder
		obj.WriteString(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"ports":[`)
		for i := range 10000 {
			if i > 0 {
				obj.WriteString(",")
			}
			fmt.Fprintf(&obj, `{"name":"p%d","protocol":"TCP"}`, i)
		}
		obj.WriteString(`]}}`)
		review := whReview{UID: "late", Operation: "CREATE", Kind: (&whWidget{}).GroupVersionKind(), Resource: "widgets", Object: obj.String()}
		r := serveTimedReview(t, h, "/mutate-example-com-v1-widget?timeout=3s", review, 3*time.Second)
		if r.UID != "late" || r.Allowed || r.Patch != nil || r.Status == nil || r.Status.Code != 504 || r.Status.Reason != "Timeout" ||
			!strings.Contains(r.Status.Message, "deadline exceeded") {
			t.Errorf("response = allowed %v, %d bytes of patch, status %+v; want denied 504 Timeout, no patch", r.Allowed, len(r.Patch), r.Status)
		}
	})
}
