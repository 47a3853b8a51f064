// SPDX-License-Identifier: Apache-2.0

package kubetest_test

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// converter is a conversion webhook on loopback: v1's spec.size is v2's
// spec.replicas; while failing is set it answers every review with a
// Failure.
type converter struct {
	srv      *httptest.Server
	caBundle string
	failing  atomic.Bool
	calls    atomic.Int32
	lastPath atomic.Pointer[string] // host and request URI of the last call
}

// newConverter starts a converter, with cert as its certificate when it is
// not nil (httptest's, for 127.0.0.1, otherwise).
func newConverter(t *testing.T, cert *tls.Certificate) *converter {
	t.Helper()
	c := &converter{}
	c.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.calls.Add(1)
		path := r.Host + r.URL.RequestURI()
		c.lastPath.Store(&path)
		var rv struct {
			APIVersion string `json:"apiVersion"`
			Request    struct {
				UID     string           `json:"uid"`
				Desired string           `json:"desiredAPIVersion"`
				Objects []map[string]any `json:"objects"`
			} `json:"request"`
		}
		if err := json.NewDecoder(r.Body).Decode(&rv); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		result := map[string]any{"status": "Success"}
		if c.failing.Load() {
			result = map[string]any{"status": "Failure", "message": "not today"}
		}
		for _, o := range rv.Request.Objects {
			from, to := "size", "replicas"
			if strings.HasSuffix(rv.Request.Desired, "/v1") {
				from, to = to, from
			}
			if spec, ok := o["spec"].(map[string]any); ok {
				if n, ok := spec[from]; ok {
					spec[to] = n
					delete(spec, from)
				}
			}
			o["apiVersion"] = rv.Request.Desired
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": rv.APIVersion, "kind": "ConversionReview",
			"response": map[string]any{"uid": rv.Request.UID, "convertedObjects": rv.Request.Objects, "result": result}})
	}))
	if cert != nil {
		c.srv.TLS = &tls.Config{Certificates: []tls.Certificate{*cert}}
	}
	c.srv.StartTLS()
	t.Cleanup(c.srv.Close)
	c.caBundle = base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.srv.Certificate().Raw}))
	return c
}

// convertedCRD is a CRD of Gadgets, v1 stored, v2 converted by the
// webhook at clientConfig, both with status and scale subresources.
func convertedCRD(clientConfig map[string]any) *kube.Unstructured {
	version := func(name, field string, storage bool) map[string]any {
		return map[string]any{"name": name, "served": true, "storage": storage,
			"subresources": map[string]any{"status": map[string]any{},
				"scale": map[string]any{"specReplicasPath": ".spec." + field, "statusReplicasPath": ".status.ready"}},
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}
	}
	return &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: kube.ObjectMeta{Name: "gadgets.example.com"},
		Content: map[string]any{"spec": map[string]any{"group": "example.com", "scope": "Namespaced",
			"names":    map[string]any{"plural": "gadgets", "kind": "Gadget"},
			"versions": []any{version("v1", "size", true), version("v2", "replicas", false)},
			"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"conversionReviewVersions": []any{"v1"}, "clientConfig": clientConfig}}}}}
}

func gadget(version, name string, spec map[string]any) *kube.Unstructured {
	g := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: name}}
	g.SetGroupVersionKind(kube.GroupVersionKind{Group: "example.com", Version: version, Kind: "Gadget"})
	if spec != nil {
		g.SetField(spec, "spec")
	}
	return g
}

// TestConversionReadErrorsByMinor: a read in another version that the
// webhook fails is answered as each minor answers it (1.37: the stored
// object is corrupt; 1.33: the conversion's error), a watch gets the
// get's Status as an ERROR event, and a write fails with a bare 500.
func TestConversionReadErrorsByMinor(t *testing.T) {
	const failed = "conversion webhook for example.com/v1, Kind=Gadget failed: not today"
	for _, tc := range []struct {
		minor               int
		getReason, getMsg   string
		listReason, listMsg string
	}{
		{33, "", failed, "", failed},
		{37, kube.ReasonInternalError, "Internal error occurred: StorageError: corrupt object, Code: 7, Key: /example.com/gadgets/default/g, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%s: " + failed,
			"StorageReadError", "failed to read one or more gadgets.example.com from the storage: StorageError: corrupt object, Code: 7, Key: /registry/example.com/gadgets/default/g, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%s: " + failed},
	} {
		t.Run(fmt.Sprint("1.", tc.minor), func(t *testing.T) {
			conv := newConverter(t, nil)
			_, c, ctx := admissionClient(t, kubetest.Options{Minor: tc.minor})
			mustCreate(t, c, ctx, convertedCRD(map[string]any{"url": conv.srv.URL, "caBundle": conv.caBundle}))
			g := gadget("v1", "g", map[string]any{"size": 2})
			mustCreate(t, c, ctx, g)
			if n := conv.calls.Load(); n != 0 {
				t.Errorf("a create in the storage version called the webhook %d times, want 0", n)
			}
			conv.failing.Store(true)
			st := statusOf(t, c.Get(ctx, kube.Key{Namespace: "default", Name: "g"}, gadget("v2", "", nil)))
			if want := strings.Replace(tc.getMsg, "%s", g.ResourceVersion, 1); st.Code != 500 || st.Reason != tc.getReason || st.Message != want {
				t.Errorf("get in v2 = %d %s %q, want 500 %s %q", st.Code, st.Reason, st.Message, tc.getReason, want)
			}
			var list kube.List[kube.Unstructured]
			list.SetGroupVersionKind(kube.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "GadgetList"})
			st = statusOf(t, c.List(ctx, &list, kube.InNamespace("default")))
			if want := strings.Replace(tc.listMsg, "%s", g.ResourceVersion, 1); st.Code != 500 || st.Reason != tc.listReason || st.Message != want {
				t.Errorf("list in v2 = %d %s %q, want 500 %s %q", st.Code, st.Reason, st.Message, tc.listReason, want)
			}
			w, err := c.Watch(ctx, kube.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Gadget"}, kube.ListOptions{Namespace: "default"})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			_, err = w.Next() // the client answers an ERROR event as its Status
			st = statusOf(t, err)
			if want := strings.Replace(tc.getMsg, "%s", g.ResourceVersion, 1); st.Code != 500 || st.Reason != tc.getReason || st.Message != want {
				t.Errorf("watch in v2 = %d %s %q, want an ERROR event with the get's status", st.Code, st.Reason, st.Message)
			}
			st = statusOf(t, c.Create(ctx, gadget("v2", "h", map[string]any{"replicas": 1})))
			if want := "conversion webhook for example.com/v2, Kind=Gadget failed: not today"; st.Code != 500 || st.Reason != "" || st.Message != want {
				t.Errorf("create in v2 = %d %s %q, want 500 without a reason %q", st.Code, st.Reason, st.Message, want)
			}
		})
	}
}

// TestConversionSubresources: the status and scale subresources of a
// version converted by a webhook read and write the stored object
// through it.
func TestConversionSubresources(t *testing.T) {
	conv := newConverter(t, nil)
	_, c, ctx := admissionClient(t, kubetest.Options{})
	mustCreate(t, c, ctx, convertedCRD(map[string]any{"url": conv.srv.URL, "caBundle": conv.caBundle}))
	g := gadget("v2", "g", map[string]any{"replicas": 2})
	mustCreate(t, c, ctx, g)
	g.SetField(map[string]any{"ready": 1}, "status")
	if err := c.Status().Update(ctx, g); err != nil {
		t.Fatalf("status update in v2: %v", err)
	}
	stored := gadget("v1", "", nil)
	if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "g"}, stored); err != nil {
		t.Fatal(err)
	}
	size, _ := stored.Field("spec", "size")
	ready, _ := stored.Field("status", "ready")
	if fmt.Sprint(size, ready) != "2 1" {
		t.Errorf("stored after a status update in v2 = spec %v status %v, want size 2 ready 1", stored.Content["spec"], stored.Content["status"])
	}
	var scale kube.Unstructured
	scale.SetGroupVersionKind(kube.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"})
	if err := c.SubResource("scale").Get(ctx, gadget("v2", "g", nil), &scale); err != nil {
		t.Fatalf("get scale in v2: %v", err)
	}
	if n, _ := scale.Field("spec", "replicas"); fmt.Sprint(n) != "2" {
		t.Errorf("scale in v2 = spec %v, want replicas 2 (v2's spec.replicas)", scale.Content["spec"])
	}
	scale.SetField(map[string]any{"replicas": 4}, "spec")
	if err := c.SubResource("scale").Update(ctx, gadget("v2", "g", nil), &scale); err != nil {
		t.Fatalf("update scale in v2: %v", err)
	}
	if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "g"}, stored); err != nil {
		t.Fatal(err)
	}
	if size, _ := stored.Field("spec", "size"); fmt.Sprint(size) != "4" {
		t.Errorf("stored after a scale update in v2 = spec %v, want size 4", stored.Content["spec"])
	}
}

// TestConversionService: a webhook named by a service is called at the
// address Options.WebhookServices gives, its certificate checked for
// NAME.NAMESPACE.svc.
func TestConversionService(t *testing.T) {
	ca, err := kubetest.NewCA("conversion test CA")
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.Issue("conv.system.svc", "conv.system.svc")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	conv := newConverter(t, &cert)
	_, c, ctx := admissionClient(t, kubetest.Options{WebhookServices: func(namespace, name string, port int32) (string, error) {
		if namespace != "system" || name != "conv" || port != 8443 {
			return "", fmt.Errorf("no service %s/%s:%d", namespace, name, port)
		}
		return conv.srv.Listener.Addr().String(), nil
	}})
	mustCreate(t, c, ctx, convertedCRD(map[string]any{"caBundle": base64.StdEncoding.EncodeToString(ca.CertPEM),
		"service": map[string]any{"namespace": "system", "name": "conv", "port": 8443, "path": "/convert"}}))
	mustCreate(t, c, ctx, gadget("v1", "g", map[string]any{"size": 3}))
	g := gadget("v2", "", nil)
	if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "g"}, g); err != nil {
		t.Fatalf("get in v2 through a service: %v", err)
	}
	if n, _ := g.Field("spec", "replicas"); fmt.Sprint(n) != "3" {
		t.Errorf("get in v2 through a service = spec %v, want replicas 3", g.Content["spec"])
	}
	if got := conv.lastPath.Load(); got == nil || *got != "conv.system.svc:8443/convert?timeout=30s" {
		t.Errorf("the service was called at %v, want conv.system.svc:8443/convert?timeout=30s", got)
	}
}

// TestConversionAdmission: admission webhooks are sent the objects of a
// write in another version in that version (object and oldObject), and
// what a mutating webhook patches in it is converted and stored.
func TestConversionAdmission(t *testing.T) {
	conv := newConverter(t, nil)
	h := newHookServer(t, map[string]answerFunc{"/m": patchOf(`[{"op":"add","path":"/metadata/labels","value":{"mutated":"yes"}},{"op":"add","path":"/spec/extra","value":1}]`),
		"/v": allow()})
	_, c, ctx := admissionClient(t, kubetest.Options{})
	mustCreate(t, c, ctx, convertedCRD(map[string]any{"url": conv.srv.URL, "caBundle": conv.caBundle}))
	onGadgets := map[string]any{"rules": []any{map[string]any{"apiGroups": []any{"example.com"}, "apiVersions": []any{"v2"},
		"operations": []any{"CREATE", "UPDATE"}, "resources": []any{"gadgets"}}}}
	mustCreate(t, c, ctx, configuration("MutatingWebhookConfiguration", "m", h.hook("m.kubeloop.test", "/m", onGadgets)))
	mustCreate(t, c, ctx, configuration("ValidatingWebhookConfiguration", "v", h.hook("v.kubeloop.test", "/v", onGadgets)))

	g := gadget("v2", "g", map[string]any{"replicas": 2})
	mustCreate(t, c, ctx, g)
	sent := func(path string) (object, oldObject map[string]any) {
		reqs := h.sent(path)
		last := reqs[len(reqs)-1]
		object, _ = last["object"].(map[string]any)
		oldObject, _ = last["oldObject"].(map[string]any)
		return object, oldObject
	}
	for _, path := range []string{"/m", "/v"} {
		o, _ := sent(path)
		if spec, _ := o["spec"].(map[string]any); o["apiVersion"] != "example.com/v2" || fmt.Sprint(spec["replicas"]) != "2" {
			t.Errorf("%s was sent the create in v2 as %v spec %v, want example.com/v2 with replicas 2", path, o["apiVersion"], o["spec"])
		}
	}
	stored := gadget("v1", "", nil)
	if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "g"}, stored); err != nil {
		t.Fatal(err)
	}
	size, _ := stored.Field("spec", "size")
	extra, _ := stored.Field("spec", "extra")
	if fmt.Sprint(size, extra) != "2 1" || stored.Labels["mutated"] != "yes" {
		t.Errorf("stored = spec %v labels %v, want size 2, the webhook's extra 1 and label", stored.Content["spec"], stored.Labels)
	}
	g.SetField(map[string]any{"replicas": 5}, "spec")
	if err := c.Update(ctx, g); err != nil {
		t.Fatalf("update in v2: %v", err)
	}
	if _, old := sent("/v"); old["apiVersion"] != "example.com/v2" || fmt.Sprint(old["spec"].(map[string]any)["replicas"]) != "2" {
		t.Errorf("the update's oldObject = %v spec %v, want example.com/v2 with replicas 2", old["apiVersion"], old["spec"])
	}
}

// TestConversionSeeding: the Server's own Create, Get and List in a
// version converted by a webhook convert as requests do.
func TestConversionSeeding(t *testing.T) {
	conv := newConverter(t, nil)
	s, c, ctx := admissionClient(t, kubetest.Options{})
	mustCreate(t, c, ctx, convertedCRD(map[string]any{"url": conv.srv.URL, "caBundle": conv.caBundle}))
	v1 := kube.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
	v2 := kube.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "gadgets"}
	created, err := s.Create(v2, map[string]any{"metadata": map[string]any{"name": "g"}, "spec": map[string]any{"replicas": 3}})
	if err != nil {
		t.Fatal(err)
	}
	if spec := created["spec"].(map[string]any); fmt.Sprint(spec["replicas"]) != "3" {
		t.Errorf("Create in v2 = spec %v, want replicas 3", spec)
	}
	stored, err := s.Get(v1, "default", "g")
	if err != nil {
		t.Fatal(err)
	}
	if spec := stored["spec"].(map[string]any); fmt.Sprint(spec["size"]) != "3" {
		t.Errorf("Get in v1 = spec %v, want size 3", spec)
	}
	listed, err := s.List(v2, "default")
	if err != nil || len(listed) != 1 || fmt.Sprint(listed[0]["spec"].(map[string]any)["replicas"]) != "3" {
		t.Errorf("List in v2 = %v, %v; want one object with replicas 3", listed, err)
	}
	conv.failing.Store(true)
	if _, err := s.Get(v2, "default", "g"); err == nil || !strings.Contains(err.Error(), "conversion webhook for example.com/v1, Kind=Gadget failed: not today") {
		t.Errorf("Get in v2 through a failing webhook = %v, want the conversion's error", err)
	}

	// A deletecollection in v2 answers the deleted objects in v2.
	conv.failing.Store(false)
	req, _ := http.NewRequest(http.MethodDelete, "https://kubetest.invalid/apis/example.com/v2/namespaces/default/gadgets", nil)
	resp, err := (&http.Client{Transport: s.Transport()}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var deleted struct {
		Items []struct {
			APIVersion string         `json:"apiVersion"`
			Spec       map[string]any `json:"spec"`
		} `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&deleted); err != nil || len(deleted.Items) != 1 ||
		deleted.Items[0].APIVersion != "example.com/v2" || fmt.Sprint(deleted.Items[0].Spec["replicas"]) != "3" {
		t.Errorf("deletecollection in v2 answered %d %+v, %v; want the object in v2 with replicas 3", resp.StatusCode, deleted, err)
	}
}
