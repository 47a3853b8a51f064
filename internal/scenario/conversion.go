// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// testConversionWebhook serves a CRD with versions v1 (spec.size, the
// storage version) and v2 (spec.replicas) whose conversion strategy is
// Webhook, and checks what the server does with its webhook: writes in v2
// (create, update, merge patch, apply) stored in v1, reads (get, list,
// watch with its initial events) in each version, reviews of one object
// without its resourceVersion and never one already at the desired
// version, and the answers to a webhook's Failure, to a webhook that
// renames the object and to one that cannot be reached: 500s worded per
// minor (1.37 calls a stored object that does not convert corrupt).
func testConversionWebhook(t *testing.T, f *fixture) {
	hook := &conversionHook{}
	url, caBundle := ServeTLS(t, map[string]http.Handler{"/convert": hook})
	srv := webhookServer{url: url, caBundle: caBundle}
	kind := "Shape" + randomSuffix()
	plural := strings.ToLower(kind) + "s"
	f.installConverted(t, plural, kind, map[string]any{"url": srv.url + "/convert", "caBundle": srv.caBundle})
	v1 := kube.GroupVersionKind{Group: widgetGroup, Version: "v1", Kind: kind}
	v2 := kube.GroupVersionKind{Group: widgetGroup, Version: "v2", Kind: kind}

	hook.reset()
	a := shape(f, v2, "a", nil, "replicas", 3)
	if err := f.c.Create(f.ctx, a); err != nil {
		t.Fatalf("create in v2: %v", err)
	}
	if n, _ := a.Field("spec", "replicas"); fmt.Sprint(n) != "3" || a.APIVersion != v2.APIVersion() {
		t.Errorf("create in v2 answered %s spec %v, want %s with replicas 3", a.APIVersion, a.Content["spec"], v2.APIVersion())
	}
	if r := hook.first(); r.review != "apiextensions.k8s.io/v1" || r.desired != v1.APIVersion() || r.objects != 1 || r.query != "timeout=30s" {
		t.Errorf("first review of the create in v2: %+v; want an apiextensions.k8s.io/v1 review of 1 object to %s, query timeout=30s", r, v1.APIVersion())
	}
	checkShape(t, f, v1, "a", "size", 3)
	checkShape(t, f, v2, "a", "replicas", 3)
	f.mustCreate(t, shape(f, v1, "b", nil, "size", 5))
	checkShape(t, f, v2, "b", "replicas", 5)
	for _, gvk := range []kube.GroupVersionKind{v1, v2} {
		checkShapeList(t, f, gvk, map[string]int{"a": 3, "b": 5})
	}
	checkWatchV2(t, f, v2)

	a = shape(f, v2, "a", nil, "", 0)
	if err := f.c.Get(f.ctx, kube.Key{Namespace: f.ns, Name: "a"}, a); err != nil {
		t.Fatal(err)
	}
	a.SetField(map[string]any{"replicas": 6}, "spec")
	if err := f.c.Update(f.ctx, a); err != nil {
		t.Errorf("update in v2: %v", err)
	}
	checkShape(t, f, v1, "a", "size", 6)
	if err := f.c.Apply(f.ctx, shape(f, v2, "a", nil, "replicas", 7), kube.WriteOptions{FieldManager: "scenario", Force: true}); err != nil {
		t.Errorf("apply in v2: %v", err)
	}
	checkShape(t, f, v1, "a", "size", 7)
	checkShape(t, f, v2, "a", "replicas", 7)
	if r := hook.check(); r != "" {
		t.Errorf("the webhook was sent %s", r)
	}

	err := f.c.Create(f.ctx, shape(f, v2, "c", map[string]string{"convert": "fail"}, "replicas", 1))
	checkStatus(t, "create in v2 that the webhook fails", err, 500, "",
		fmt.Sprintf("conversion webhook for %s, Kind=%s failed: shape %q cannot be converted", v2.APIVersion(), kind, "c"))

	d := shape(f, v1, "d", map[string]string{"convert": "rename"}, "size", 1)
	f.mustCreate(t, d)
	renamed := fmt.Sprintf("conversion webhook for %s, Kind=%s returned invalid object: must have the same name: d != d-renamed", v1.APIVersion(), kind)
	err = f.c.Get(f.ctx, kube.Key{Namespace: f.ns, Name: "d"}, shape(f, v2, "", nil, "", 0))
	f.checkReadFailure(t, "get in v2 that the webhook renames", err, plural, d, renamed, false)
	var list kube.List[kube.Unstructured]
	list.SetGroupVersionKind(kube.GroupVersionKind{Group: widgetGroup, Version: "v2", Kind: kind + "List"})
	err = f.c.List(f.ctx, &list, kube.InNamespace(f.ns))
	f.checkReadFailure(t, "list in v2 that the webhook renames", err, plural, d, renamed, true)

	down := "Down" + randomSuffix()
	f.installConverted(t, strings.ToLower(down)+"s", down, map[string]any{"url": "https://127.0.0.1:1/convert", "caBundle": srv.caBundle})
	e := shape(f, kube.GroupVersionKind{Group: widgetGroup, Version: "v1", Kind: down}, "e", nil, "size", 1)
	f.mustCreate(t, e)
	refused := fmt.Sprintf(`conversion webhook for %s/v1, Kind=%s failed: Post "https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: connect: connection refused`, widgetGroup, down)
	err = f.c.Get(f.ctx, kube.Key{Namespace: f.ns, Name: "e"}, shape(f, kube.GroupVersionKind{Group: widgetGroup, Version: "v2", Kind: down}, "", nil, "", 0))
	f.checkReadFailure(t, "get in v2 through a webhook that is down", err, strings.ToLower(down)+"s", e, refused, false)

	// The CRD is validated: a Webhook strategy needs the review versions
	// (the path names the field of the internal version).
	bad := "Bad" + randomSuffix()
	crd := convertedCRD(strings.ToLower(bad)+"s", bad, map[string]any{"url": srv.url + "/convert"})
	delete(crd.Content["spec"].(map[string]any)["conversion"].(map[string]any)["webhook"].(map[string]any), "conversionReviewVersions")
	err = f.c.Create(f.ctx, crd)
	want := `CustomResourceDefinition.apiextensions.k8s.io "` + crd.Name + `" is invalid: spec.conversion.conversionReviewVersions: Required value`
	if !kube.IsInvalid(err) || statusMessage(err) != want {
		t.Errorf("create of a CRD converted by a webhook without conversionReviewVersions = %v, want Invalid %q", err, want)
	}
}

// checkReadFailure checks the answer to a read of o in a version its
// conversion fails for (with message msg): before 1.37 a 500 with msg;
// 1.37 says the stored object is corrupt, for a list (inList) that it
// failed to read one or more objects.
func (f *fixture) checkReadFailure(t *testing.T, what string, err error, plural string, o *kube.Unstructured, msg string, inList bool) {
	t.Helper()
	if f.minor(t) < 37 {
		checkStatus(t, what, err, 500, "", msg)
		return
	}
	key := "/" + widgetGroup + "/" + plural + "/" + f.ns + "/" + o.Name
	if inList {
		key = "/registry" + key
	}
	corrupt := "StorageError: corrupt object, Code: 7, Key: " + key + ", ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=" + o.ResourceVersion + ": " + msg
	if inList {
		checkStatus(t, what, err, 500, "StorageReadError", "failed to read one or more "+plural+"."+widgetGroup+" from the storage: "+corrupt)
		return
	}
	checkStatus(t, what, err, 500, kube.ReasonInternalError, "Internal error occurred: "+corrupt)
}

// checkShapeList lists in gvk's version and wants each object named in
// want at that version with its spec field (size in v1, replicas in v2).
func checkShapeList(t *testing.T, f *fixture, gvk kube.GroupVersionKind, want map[string]int) {
	t.Helper()
	field := map[string]string{"v1": "size", "v2": "replicas"}[gvk.Version]
	var list kube.List[kube.Unstructured]
	list.SetGroupVersionKind(kube.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind + "List"})
	if err := f.c.List(f.ctx, &list, kube.InNamespace(f.ns)); err != nil {
		t.Fatalf("list in %s: %v", gvk.Version, err)
	}
	got, wanted := map[string]string{}, map[string]string{}
	for _, it := range list.Items {
		n, _ := it.Field("spec", field)
		got[it.Name] = fmt.Sprint(it.APIVersion, " ", n)
	}
	for name, n := range want {
		wanted[name] = fmt.Sprint(gvk.APIVersion(), " ", n)
	}
	if fmt.Sprint(got) != fmt.Sprint(wanted) {
		t.Errorf("list in %s = %v, want %v", gvk.Version, got, wanted)
	}
}

// checkWatchV2 watches in v2 without a resourceVersion (initial ADDED
// events for a and b), merge patches a in v2 and wants every object of
// the watch in v2 and the patch stored in v1.
func checkWatchV2(t *testing.T, f *fixture, v2 kube.GroupVersionKind) {
	t.Helper()
	w, err := f.c.Watch(f.ctx, v2, kube.ListOptions{Namespace: f.ns})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	seen := map[string]string{}
	for len(seen) < 2 {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("watch in v2: %v", err)
		}
		var o kube.Unstructured
		if err := ev.Decode(&o); err != nil {
			t.Fatal(err)
		}
		n, _ := o.Field("spec", "replicas")
		seen[o.Name] = fmt.Sprint(ev.Type, " ", o.APIVersion, " ", n)
	}
	if want := fmt.Sprint(map[string]string{"a": "ADDED " + v2.APIVersion() + " 3", "b": "ADDED " + v2.APIVersion() + " 5"}); fmt.Sprint(seen) != want {
		t.Errorf("initial events of a watch in v2 = %v, want %v", seen, want)
	}
	if err := f.c.Patch(f.ctx, shape(f, v2, "a", nil, "", 0), kube.Patch{Type: kube.MergePatch, Data: []byte(`{"spec":{"replicas":4}}`)}); err != nil {
		t.Fatalf("merge patch in v2: %v", err)
	}
	ev, err := w.Next()
	if err != nil {
		t.Fatalf("watch in v2: %v", err)
	}
	var o kube.Unstructured
	_ = ev.Decode(&o)
	if n, _ := o.Field("spec", "replicas"); ev.Type != "MODIFIED" || o.APIVersion != v2.APIVersion() || fmt.Sprint(n) != "4" {
		t.Errorf("watch event of the patch in v2 = %s %s spec %v, want MODIFIED %s replicas 4", ev.Type, o.APIVersion, o.Content["spec"], v2.APIVersion())
	}
	checkShape(t, f, kube.GroupVersionKind{Group: v2.Group, Version: "v1", Kind: v2.Kind}, "a", "size", 4)
}

func checkStatus(t *testing.T, what string, err error, code int32, reason, message string) {
	t.Helper()
	var se *kube.StatusError
	if !errors.As(err, &se) || se.Status.Code != code || se.Status.Reason != reason || se.Status.Message != message {
		t.Errorf("%s = %v, want %d %s %q", what, err, code, reason, message)
	}
}

// shape is an object of the converted CRD at gvk, with spec.field = n
// when field is set.
func shape(f *fixture, gvk kube.GroupVersionKind, name string, labels map[string]string, field string, n int) *kube.Unstructured {
	o := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: name, Labels: labels}}
	o.SetGroupVersionKind(gvk)
	if field != "" {
		o.SetField(map[string]any{field: n}, "spec")
	}
	return o
}

func checkShape(t *testing.T, f *fixture, gvk kube.GroupVersionKind, name, field string, want int) {
	t.Helper()
	o := shape(f, gvk, "", nil, "", 0)
	if err := f.c.Get(f.ctx, kube.Key{Namespace: f.ns, Name: name}, o); err != nil {
		t.Errorf("get %s in %s: %v", name, gvk.Version, err)
		return
	}
	if n, _ := o.Field("spec", field); o.APIVersion != gvk.APIVersion() || fmt.Sprint(n) != fmt.Sprint(want) {
		t.Errorf("get %s in %s = %s spec %v, want spec.%s %d", name, gvk.Version, o.APIVersion, o.Content["spec"], field, want)
	}
}

// installConverted creates the CRD of kind with v1 (spec.size, stored)
// and v2 (spec.replicas) converted by the webhook at clientConfig, and
// waits until both versions are served.
func (f *fixture) installConverted(t *testing.T, plural, kind string, clientConfig map[string]any) {
	t.Helper()
	crd := convertedCRD(plural, kind, clientConfig)
	f.mustCreate(t, crd)
	t.Cleanup(func() { _ = f.c.Delete(context.Background(), crd) })
	for _, v := range []string{"v1", "v2"} {
		f.eventually(t, "CRD served in "+v, func() error {
			var list kube.List[kube.Unstructured]
			list.SetGroupVersionKind(kube.GroupVersionKind{Group: widgetGroup, Version: v, Kind: kind + "List"})
			return f.c.List(f.ctx, &list, kube.InNamespace(f.ns))
		})
	}
}

// conversionHook converts v1 (spec.size) to v2 (spec.replicas) and back;
// an object labelled convert=fail it answers with a Failure, one labelled
// convert=rename it renames. It keeps what each review asked.
type conversionHook struct {
	mu      sync.Mutex
	reviews []review
}

type review struct {
	review, desired, query string
	objects                int
	// sameVersion counts objects already at the desired version;
	// withRV those sent with a resourceVersion.
	sameVersion, withRV int
}

func (h *conversionHook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var rv struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Request    struct {
			UID               string           `json:"uid"`
			DesiredAPIVersion string           `json:"desiredAPIVersion"`
			Objects           []map[string]any `json:"objects"`
		} `json:"request"`
	}
	if err := json.NewDecoder(r.Body).Decode(&rv); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := rv.Request
	h.mu.Lock()
	got := review{review: rv.APIVersion, desired: req.DesiredAPIVersion, query: r.URL.RawQuery, objects: len(req.Objects)}
	for _, o := range req.Objects {
		meta, _ := o["metadata"].(map[string]any)
		if _, has := meta["resourceVersion"]; has {
			got.withRV++
		}
		if o["apiVersion"] == req.DesiredAPIVersion {
			got.sameVersion++
		}
	}
	h.reviews = append(h.reviews, got)
	h.mu.Unlock()
	result := map[string]any{"status": "Success"}
	converted := make([]any, 0, len(req.Objects))
	for _, o := range req.Objects {
		meta, _ := o["metadata"].(map[string]any)
		labels, _ := meta["labels"].(map[string]any)
		switch labels["convert"] {
		case "fail":
			result = map[string]any{"status": "Failure", "message": fmt.Sprintf("shape %q cannot be converted", meta["name"])}
		case "rename":
			meta["name"] = fmt.Sprint(meta["name"], "-renamed")
		}
		spec, _ := o["spec"].(map[string]any)
		from, to := "size", "replicas"
		if strings.HasSuffix(req.DesiredAPIVersion, "/v1") {
			from, to = to, from
		}
		if n, ok := spec[from]; ok {
			delete(spec, from)
			spec[to] = n
		}
		o["apiVersion"] = req.DesiredAPIVersion
		converted = append(converted, o)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": rv.APIVersion, "kind": rv.Kind,
		"response": map[string]any{"uid": req.UID, "convertedObjects": converted, "result": result}})
}

// first is the first review since the last reset.
func (h *conversionHook) first() review {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.reviews) == 0 {
		return review{}
	}
	return h.reviews[0]
}

func (h *conversionHook) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reviews = nil
}

// check says what the reviews since the last reset held that the real
// server never sends, "" when nothing: more or fewer than one object,
// an object already at the desired version, a resourceVersion.
func (h *conversionHook) check() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.reviews {
		if r.objects != 1 || r.sameVersion != 0 || r.withRV != 0 {
			return fmt.Sprintf("a review of %d objects, %d at the desired version, %d with a resourceVersion", r.objects, r.sameVersion, r.withRV)
		}
	}
	return ""
}

// convertedCRD is the CRD of kind with v1 (spec.size, stored) and v2
// (spec.replicas) converted by the webhook at clientConfig.
func convertedCRD(plural, kind string, clientConfig map[string]any) *kube.Unstructured {
	version := func(name, field string, storage bool) map[string]any {
		return map[string]any{"name": name, "served": true, "storage": storage,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
				"spec": map[string]any{"type": "object", "properties": map[string]any{field: map[string]any{"type": "integer"}}}}}}}
	}
	return &kube.Unstructured{
		TypeMeta:   kube.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: kube.ObjectMeta{Name: plural + "." + widgetGroup},
		Content: map[string]any{"spec": map[string]any{
			"group": widgetGroup, "scope": "Namespaced",
			"names":    map[string]any{"plural": plural, "singular": strings.ToLower(kind), "kind": kind, "listKind": kind + "List"},
			"versions": []any{version("v1", "size", true), version("v2", "replicas", false)},
			"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"conversionReviewVersions": []any{"v1"}, "clientConfig": clientConfig}},
		}},
	}
}
