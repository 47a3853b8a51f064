// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/exactjson"
	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// fzWidget declares some of an object's fields, with the shapes typed
// views have: a number without omitempty (the typed view writes 0), a
// list of structs, a list of strings, a map and a pointer.
type fzWidget struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            fzSpec `json:"spec"`
}

type fzSpec struct {
	Size   int            `json:"size"`
	Color  string         `json:"color,omitempty"`
	Ports  []fzPort       `json:"ports,omitempty"`
	Tags   []string       `json:"tags"`
	Limits map[string]int `json:"limits,omitempty"`
	Paused *bool          `json:"paused,omitempty"`
}

type fzPort struct {
	Name string `json:"name"`
	Port int    `json:"port,omitempty"`
}

func (*fzWidget) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
}

// fzDefault changes objects every way a defaulter does: sets scalars,
// changes list elements in place, sorts a list, adds and removes list
// elements and map entries, sets a pointer. A negative size is an error.
func fzDefault(_ context.Context, w *fzWidget) error {
	s := &w.Spec
	if s.Size < 0 {
		return errors.New("spec.size must not be negative")
	}
	if s.Size == 0 {
		s.Size = 1
	}
	if s.Color == "" {
		s.Color = "blue"
	}
	s.Ports = slices.DeleteFunc(s.Ports, func(p fzPort) bool { return p.Name == "drop" })
	hasMetrics := false
	for i := range s.Ports {
		if s.Ports[i].Port == 0 {
			s.Ports[i].Port = 80
		}
		hasMetrics = hasMetrics || s.Ports[i].Name == "metrics"
	}
	if !hasMetrics && len(s.Ports) > 0 {
		s.Ports = append(s.Ports, fzPort{Name: "metrics", Port: 9090})
	}
	slices.Sort(s.Tags)
	s.Tags = slices.Compact(s.Tags)
	if s.Limits == nil {
		s.Limits = map[string]int{}
	}
	if _, ok := s.Limits["cpu"]; !ok {
		s.Limits["cpu"] = 1
	}
	if s.Paused == nil {
		s.Paused = new(bool)
	}
	if w.Labels == nil {
		w.Labels = map[string]string{}
	}
	w.Labels["defaulted"] = "true"
	delete(w.Labels, "legacy")
	return nil
}

// FuzzMutatingWebhook sends reviews of arbitrary objects to
// MutatingWebhookFor. The answer carries the uid; the object is decoded as
// exactjson.Unmarshal decodes it (keys matched exactly, as the API server
// does); an object that does not decode into the type is refused with 400, a defaulter error with 403;
// otherwise the returned patch applies to the object as sent, and the
// result decodes into the type as what the defaulter produced from it
// (no patch when it produced nothing new), with the top-level fields the
// type does not declare as they were.
func FuzzMutatingWebhook(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default","labels":{"legacy":"x","app":"a"},"managedFields":[{"manager":"kubectl"}],"futureField":1},"spec":{"extra":{"deep":[1,2]},"ports":[{"name":"http","protocol":"TCP"},{"name":"admin","port":9000,"appProtocol":"h2"}]},"status":{"ready":false}}`,
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`,
		`{"metadata":{"name":"w","labels":{"defaulted":"true"}},"spec":{"size":2,"color":"red","tags":[],"limits":{"cpu":2},"paused":false,"x":1}}`,
		`{"spec":{"tags":["b","a","b"],"ports":[{"name":"drop","x":1},{"name":"a","x":2},{"name":"metrics","port":1}]}}`,
		`{"spec":{"size":-1}}`,
		`{"spec":{"size":"big"}}`,
		`{"spec":{"SIZE":0,"Tags":null}}`,
		`{"spec":{"size":3,"SIZE":-1,"ſize":-1},"speC":{"size":-1},"metadata":{"Labels":{"legacy":"x"}}}`,
		`{"spec":null,"metadata":null}`,
		`{"metadata":{"creationTimestamp":"2026-11-21T04:48:10.5Z","labels":null}}`,
		`[]`, `null`, `7`,
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	h := webhook.MutatingFor[fzWidget](webhook.DefaulterFunc[fzWidget](fzDefault))
	kind := (&fzWidget{}).GroupVersionKind()
	f.Fuzz(func(t *testing.T, object []byte, create bool) {
		if !json.Valid(object) {
			return
		}
		r := whReview{UID: "fz", Operation: "UPDATE", Kind: kind, Resource: "widgets", Object: string(object), OldObject: string(object)}
		if create {
			r.Operation, r.OldObject = "CREATE", ""
		}
		req := httptest.NewRequest(http.MethodPost, "/mutate?timeout=10s", strings.NewReader(r.JSON()))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var review webhook.AdmissionReview
		if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &review) != nil || review.Response == nil || review.Response.UID != "fz" {
			t.Fatalf("review of %s: answer %d %s, want a review with uid fz", object, rec.Code, rec.Body)
		}
		resp := review.Response
		var defaulted fzWidget
		derr := exactjson.Unmarshal(object, &defaulted)
		if derr == nil && bytes.Equal(bytes.TrimSpace(object), []byte("null")) {
			derr = errors.New("null")
		}
		if derr != nil {
			if resp.Allowed || resp.Result == nil || resp.Result.Code != 400 {
				t.Fatalf("review of %s, which does not decode (%v): %s, want refused with 400", object, derr, rec.Body)
			}
			return
		}
		var sent fzWidget
		_ = exactjson.Unmarshal(object, &sent)
		if err := fzDefault(context.Background(), &defaulted); err != nil {
			if resp.Allowed || resp.Result == nil || resp.Result.Code != 403 {
				t.Fatalf("review of %s, which the defaulter refuses: %s, want denied with 403", object, rec.Body)
			}
			return
		}
		if !resp.Allowed {
			t.Fatalf("review of %s: %s, want allowed", object, rec.Body)
		}
		if resp.Patch == nil {
			before, _ := json.Marshal(&sent)
			after, _ := json.Marshal(&defaulted)
			if !bytes.Equal(before, after) {
				t.Fatalf("review of %s: no patch, but the defaulter changed it to %s", object, after)
			}
			return
		}
		patched, err := jsonpatch.Apply(object, resp.Patch)
		if err != nil {
			t.Fatalf("review of %s: patch %s does not apply: %v", object, resp.Patch, err)
		}
		var got fzWidget
		if err := exactjson.Unmarshal(patched, &got); err != nil {
			t.Fatalf("review of %s: patched object %s does not decode: %v", object, patched, err)
		}
		// Compared in the typed encoding, where a nil and an empty slice
		// are the same omitted field.
		got.ManagedFields, defaulted.ManagedFields = canonicalJSON(got.ManagedFields), canonicalJSON(defaulted.ManagedFields)
		if g, d := mustMarshal(t, &got), mustMarshal(t, &defaulted); !bytes.Equal(g, d) {
			t.Fatalf("review of %s: patch %s gives %s, which decodes as\n%s\nwant the defaulted\n%s", object, resp.Patch, patched, g, d)
		}
		var o, p map[string]any
		if json.Unmarshal(object, &o) == nil && json.Unmarshal(patched, &p) == nil {
			for k, v := range o {
				if k != "metadata" && k != "spec" && k != "apiVersion" && k != "kind" && !jsonpatch.Equal(p[k], v) {
					t.Fatalf("review of %s: patch %s changes field %q, which the type does not declare", object, resp.Patch, k)
				}
			}
		}
	})
}

// canonicalJSON re-encodes raw JSON with sorted keys: a patch rewrites
// what it passes through.
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	var v any
	if raw == nil || json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A member that is another spelling of a declared field ("speC",
// "ſize"), which a custom resource that keeps unknown fields stores as
// such, is an unknown field to the defaulter, as to the API server: it is
// not decoded into the field, and the patch leaves it as it is.
func TestMutatingOtherSpellingsAreUnknown(t *testing.T) {
	h := webhook.MutatingFor[fzWidget](webhook.DefaulterFunc[fzWidget](fzDefault))
	kind := (&fzWidget{}).GroupVersionKind()
	for _, tc := range []struct {
		object string
		size   float64 // spec.size after the patch
		kept   []string
	}{
		{`{"spec":{"size":2},"speC":{"size":3}}`, 2, []string{"speC"}},
		{`{"speC":{"size":3}}`, 1, []string{"speC"}},
		{`{"spec":{"size":2,"SIZE":-1,"ſize":-1}}`, 2, []string{"spec.SIZE", "spec.ſize"}},
		{`{"spec":{"SIZE":-1}}`, 1, []string{"spec.SIZE"}},
		{`{"metadata":{"Labels":{"a":"b"}},"spec":{"size":5}}`, 5, []string{"metadata.Labels"}},
	} {
		r := whReview{UID: "s", Operation: "CREATE", Kind: kind, Resource: "widgets", Object: tc.object}
		req := httptest.NewRequest(http.MethodPost, "/mutate", strings.NewReader(r.JSON()))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var review webhook.AdmissionReview
		if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil || review.Response == nil {
			t.Fatalf("review of %s: %d %s", tc.object, rec.Code, rec.Body)
		}
		resp := review.Response
		if !resp.Allowed || resp.Patch == nil {
			t.Errorf("review of %s: %s, want allowed with a patch", tc.object, rec.Body)
			continue
		}
		patched, err := jsonpatch.Apply([]byte(tc.object), resp.Patch)
		if err != nil {
			t.Fatalf("review of %s: patch %s does not apply: %v", tc.object, resp.Patch, err)
		}
		var before, after map[string]any
		if err := json.Unmarshal([]byte(tc.object), &before); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(patched, &after); err != nil {
			t.Fatal(err)
		}
		if got := member(after, "spec.size"); got != tc.size {
			t.Errorf("review of %s: patched spec.size = %v, want %v", tc.object, got, tc.size)
		}
		for _, path := range tc.kept {
			if b, a := member(before, path), member(after, path); !jsonpatch.Equal(a, b) {
				t.Errorf("review of %s: patched %s = %v, want it kept as %v", tc.object, path, a, b)
			}
		}
	}
}

// member returns the value at a dotted path of object members, or nil.
func member(doc map[string]any, path string) any {
	var v any = doc
	for _, k := range strings.Split(path, ".") {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}
