// SPDX-License-Identifier: Apache-2.0

// Package clientgo runs client-go, with the protobuf its typed clients
// default to, against kube/kubetest and against the real kube-apiserver:
// every built-in kind it can create goes through create, get, list,
// watch, update, patch, its status and delete (kinds_test.go), and the
// subresources with kinds of their own (scale, eviction, binding, token,
// approval, finalize, ephemeral containers) go through theirs
// (subresources_test.go). Each step must succeed and be answered in
// protobuf; the steps that fail are listed per server, so that the two
// servers can be compared.
package clientgo

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

const protobufType = "application/vnd.kubernetes.protobuf"

// tally counts the steps of one server, and names them.
type tally struct {
	passed []string
	failed []string
	// known are the steps kubetest is known to fail, as
	// kube/kubetest/DIFFERENCES.md lists them: logged, not errors.
	known map[string]bool
}

// kubetestKnown are the subresources kubetest does not serve
// (kube/kubetest/DIFFERENCES.md): none today, each step passes on both.
var kubetestKnown = map[string]bool{}

// newTally is the tally of srv.
func newTally(srv server) *tally {
	if srv.name == "kubetest" {
		return &tally{known: kubetestKnown}
	}
	return &tally{}
}

func (tl *tally) record(t *testing.T, step string, err error) bool {
	t.Helper()
	if err != nil {
		tl.failed = append(tl.failed, step+": "+err.Error())
		if tl.known[step] {
			t.Logf("%s: %v (a known difference)", step, err)
		} else {
			t.Errorf("%s: %v", step, err)
		}
		return false
	}
	tl.passed = append(tl.passed, step)
	return true
}

func (tl *tally) report(t *testing.T, name string) {
	t.Logf("%s: %d steps passed, %d failed", name, len(tl.passed), len(tl.failed))
	for _, f := range tl.failed {
		t.Logf("  FAIL %s", f)
	}
}

// compare logs the steps that passed on one server and were not tried
// or failed on another.
func compare(t *testing.T, names []string, tallies []*tally) {
	for i := range tallies {
		for j := range tallies {
			if i == j {
				continue
			}
			for _, s := range tallies[i].passed {
				if !slices.Contains(tallies[j].passed, s) {
					t.Logf("passed on %s only: %s", names[i], s)
				}
			}
		}
	}
}

// TestBuiltinKindsProtobuf sends every fixture through the verbs its
// resource has, in protobuf, on each server.
func TestBuiltinKindsProtobuf(t *testing.T) {
	var names []string
	var tallies []*tally
	for _, srv := range servers(t) {
		tl := newTally(srv)
		names, tallies = append(names, srv.name), append(tallies, tl)
		t.Run(srv.name, func(t *testing.T) {
			defer tl.report(t, srv.name)
			k := newKit(t, srv)
			for _, js := range fixtures {
				k.kind(t, tl, js)
			}
		})
	}
	compare(t, names, tallies)
}

// kit is what the steps of one server share.
type kit struct {
	srv       server
	cs        *kubernetes.Clientset
	ns, sfx   string
	resources map[schema.GroupVersion]*metav1.APIResourceList
}

// newKit makes the namespace of a test and a clientset that speaks
// protobuf for every request, as kube-controller-manager's
// (--kube-api-content-type) does: the typed clients' verbs default to
// protobuf on their own, their expansions (Bind, EvictV1, Finalize) only
// so.
func newKit(t *testing.T, srv server) *kit {
	cfg := rest.CopyConfig(srv.cfg)
	cfg.ContentType = protobufType
	cfg.AcceptContentTypes = protobufType + ",application/json"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sfx := fmt.Sprintf("%d", time.Now().UnixNano()%1e9)
	k := &kit{srv: srv, cs: cs, ns: "clientgo-" + sfx, sfx: sfx, resources: map[schema.GroupVersion]*metav1.APIResourceList{}}
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: k.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), k.ns, metav1.DeleteOptions{}) })
	return k
}

// resource finds the served resource of gvk and its subresources.
func (k *kit) resource(gvk schema.GroupVersionKind) (res metav1.APIResource, subs []string, ok bool) {
	gv := gvk.GroupVersion()
	list := k.resources[gv]
	if list == nil {
		var err error
		if list, err = k.cs.Discovery().ServerResourcesForGroupVersion(gv.String()); err != nil {
			list = &metav1.APIResourceList{}
		}
		k.resources[gv] = list
	}
	for _, r := range list.APIResources {
		if r.Kind == gvk.Kind && !strings.Contains(r.Name, "/") {
			res, ok = r, true
		}
	}
	for _, r := range list.APIResources {
		if base, sub, found := strings.Cut(r.Name, "/"); found && base == res.Name {
			subs = append(subs, sub)
		}
	}
	return res, subs, ok
}

// object decodes a fixture, its placeholders filled, into its Go type.
func (k *kit) object(t *testing.T, js string) (runtime.Object, schema.GroupVersionKind) {
	r := strings.NewReplacer("NS", k.ns, "SFX", k.sfx, `"CSR"`, `"`+csrPEM(t)+`"`,
		`"IP"`, fmt.Sprintf(`"192.0.2.%d"`, 1+time.Now().UnixNano()%250),
		`"CIDR"`, fmt.Sprintf(`"10.%d.%d.0/24"`, 200+time.Now().UnixNano()%50, time.Now().UnixNano()%250))
	obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(r.Replace(js)), nil, nil)
	if err != nil {
		t.Fatalf("fixture %s: %v", js, err)
	}
	m := obj.(metav1.Object)
	if m.GetName() == "" && !strings.HasSuffix(gvk.Kind, "Review") { // a review has no name
		m.SetName("p-" + strings.ToLower(gvk.Kind) + "-" + k.sfx)
	}
	return obj, *gvk
}

// rest is a REST client of gv as client-go's typed clients make one.
func (k *kit) rest(t *testing.T, gv schema.GroupVersion) *rest.RESTClient {
	cfg := rest.CopyConfig(k.srv.cfg)
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = rest.CodecFactoryForGeneratedClient(scheme.Scheme, scheme.Codecs).WithoutConversion()
	c, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// kind runs one fixture through the verbs of its resource.
func (k *kit) kind(t *testing.T, tl *tally, js string) {
	t.Helper()
	obj, gvk := k.object(t, js)
	res, subs, ok := k.resource(gvk)
	if !ok {
		t.Logf("%s: not served", gvk)
		return
	}
	ns := ""
	if res.Namespaced {
		ns = k.ns
	}
	name := obj.(metav1.Object).GetName()
	c := k.rest(t, gvk.GroupVersion())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	step := func(verb string) string { return gvk.Kind + " " + verb }
	req := func(verb string) *rest.Request {
		return c.Verb(verb).UseProtobufAsDefault().NamespaceIfScoped(ns, res.Namespaced).Resource(res.Name)
	}
	created := newObject(gvk)
	err := req("POST").Body(obj).Do(ctx).Into(created)
	if !tl.record(t, step("create"), k.spoke(err, true)) || !slices.Contains(res.Verbs, "get") {
		return
	}
	got := newObject(gvk)
	if tl.record(t, step("get"), k.spoke(req("GET").Name(name).Do(ctx).Into(got), false)) {
		tl.record(t, step("get in JSON the same"), k.sameInJSON(ctx, c, res, ns, name, gvk, got))
	}
	var w watch.Interface
	if slices.Contains(res.Verbs, "list") {
		list := newObject(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		err := k.spoke(req("GET").Do(ctx).Into(list), false)
		if err == nil && !listHas(list, name) {
			err = fmt.Errorf("%s is not in the list", name)
		}
		if tl.record(t, step("list"), err) && slices.Contains(res.Verbs, "watch") {
			rv := list.(metav1.ListInterface).GetResourceVersion()
			w, err = req("GET").Param("watch", "true").Param("resourceVersion", rv).
				Param("fieldSelector", "metadata.name="+name).Watch(ctx)
			if err == nil && !strings.HasPrefix(k.srv.wire.lastExchange().answered, protobufType+";stream=watch") {
				err = fmt.Errorf("watch answered in %q", k.srv.wire.lastExchange().answered)
			}
			if !tl.record(t, step("watch start"), err) {
				w = nil
			} else {
				defer w.Stop()
			}
		}
	}
	if slices.Contains(res.Verbs, "update") {
		updated := newObject(gvk)
		err := k.spoke(req("PUT").Name(name).Body(labelled(got)).Do(ctx).Into(updated), true)
		if apierrors.IsConflict(err) { // a controller of the server wrote it (a FlowSchema's status): read it again
			if err = req("GET").Name(name).Do(ctx).Into(got); err == nil {
				err = k.spoke(req("PUT").Name(name).Body(labelled(got)).Do(ctx).Into(updated), true)
			}
		}
		if tl.record(t, step("update"), err) && w != nil {
			tl.record(t, step("watch event"), awaitModified(w, name))
		}
	}
	if slices.Contains(res.Verbs, "patch") {
		patched := newObject(gvk)
		err := req("PATCH").Name(name).SetHeader("Content-Type", string(types.MergePatchType)).
			Body([]byte(`{"metadata":{"labels":{"clientgo":"patch"}}}`)).Do(ctx).Into(patched)
		if err = k.spoke(err, false); err == nil && patched.(metav1.Object).GetLabels()["clientgo"] != "patch" {
			err = fmt.Errorf("labels after the patch: %v", patched.(metav1.Object).GetLabels())
		}
		tl.record(t, step("patch"), err)
		applied := newObject(gvk)
		cfg := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q,"labels":{"applied":"yes"}}}`, gvk.GroupVersion().String(), gvk.Kind, name)
		err = req("PATCH").Name(name).SetHeader("Content-Type", string(types.ApplyPatchType)).Param("fieldManager", "clientgo").
			Body([]byte(cfg)).Do(ctx).Into(applied)
		if err = k.spoke(err, false); err == nil && applied.(metav1.Object).GetLabels()["applied"] != "yes" {
			err = fmt.Errorf("labels after the apply: %v", applied.(metav1.Object).GetLabels())
		}
		tl.record(t, step("apply"), err)
	}
	if slices.Contains(subs, "status") {
		st := newObject(gvk)
		err := k.spoke(req("GET").Name(name).SubResource("status").Do(ctx).Into(st), false)
		if tl.record(t, step("status get"), err) {
			out := newObject(gvk)
			tl.record(t, step("status update"), k.spoke(req("PUT").Name(name).SubResource("status").Body(st).Do(ctx).Into(out), true))
		}
	}
	grace := int64(0)
	if slices.Contains(res.Verbs, "delete") {
		res := req("DELETE").Name(name).Body(&metav1.DeleteOptions{GracePeriodSeconds: &grace}).Do(ctx)
		tl.record(t, step("delete"), k.spoke(res.Error(), true))
		defer release(req, name)
	}
	if slices.Contains(res.Verbs, "deletecollection") {
		// a second object, labelled for this run only: the collection
		// deleted is it alone, also on a shared server
		second, _ := k.object(t, js)
		m := second.(metav1.Object)
		for gvk.Kind == "IPAddress" && m.GetName() == name { // its name is an address
			second, _ = k.object(t, js)
			m = second.(metav1.Object)
		}
		if gvk.Kind != "IPAddress" {
			m.SetName("dc-" + name)
		}
		m.SetLabels(map[string]string{"clientgo-dc": k.sfx})
		err := k.spoke(req("POST").Body(second).Do(ctx).Error(), true)
		if err == nil {
			defer release(req, m.GetName())
			list := newObject(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			err = req("DELETE").Param("labelSelector", "clientgo-dc="+k.sfx).
				Body(&metav1.DeleteOptions{GracePeriodSeconds: &grace}).Do(ctx).Into(list)
			if err = k.spoke(err, true); err == nil && !listHas(list, m.GetName()) {
				err = fmt.Errorf("the deleted collection does not hold %s", m.GetName())
			}
		}
		tl.record(t, step("deletecollection"), err)
	}
}

// release drops the finalizers of a deleted object that no controller
// will remove on the harness's server (a PersistentVolume's or a claim's
// protection), so that the test leaves nothing behind; a gone object is
// fine.
func release(req func(verb string) *rest.Request, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = req("PATCH").Name(name).SetHeader("Content-Type", string(types.MergePatchType)).
		Body([]byte(`{"metadata":{"finalizers":null}}`)).Do(ctx).Error()
}

// sameInJSON reads name again in JSON and checks the Go object decoded
// from it is the one decoded from protobuf.
func (k *kit) sameInJSON(ctx context.Context, c *rest.RESTClient, res metav1.APIResource, ns, name string,
	gvk schema.GroupVersionKind, fromProto runtime.Object) error {
	get := func(accept string) *rest.Request {
		return c.Get().SetHeader("Accept", accept).NamespaceIfScoped(ns, res.Namespaced).Resource(res.Name).Name(name)
	}
	fromProto = fromProto.DeepCopyObject()
	for try := 0; ; try++ {
		fromJSON := newObject(gvk)
		if err := get("application/json").Do(ctx).Into(fromJSON); err != nil {
			return err
		}
		if ex := k.srv.wire.lastExchange(); ex.answered != "application/json" {
			return fmt.Errorf("asked for JSON, answered %q", ex.answered)
		}
		rv := func(o runtime.Object) string { return o.(metav1.Object).GetResourceVersion() }
		if rv(fromJSON) != rv(fromProto) && try < 3 {
			// a controller of the server wrote it in between (a
			// FlowSchema's status): read both again
			if err := get(protobufType).Do(ctx).Into(fromProto); err != nil {
				return err
			}
			continue
		}
		fromJSON.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		fromProto.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		if !equality.Semantic.DeepEqual(fromJSON, fromProto) {
			return fmt.Errorf("protobuf and JSON differ: %s", cmp.Diff(fromJSON, fromProto))
		}
		return nil
	}
}

// spoke checks that the latest exchange went well and was answered, and
// when body is set sent, in protobuf.
func (k *kit) spoke(err error, body bool) error {
	if err != nil {
		return err
	}
	ex := k.srv.wire.lastExchange()
	if body && ex.sent != protobufType {
		return fmt.Errorf("%s %s sent as %q", ex.method, ex.path, ex.sent)
	}
	if ex.answered != protobufType {
		return fmt.Errorf("%s %s answered %d as %q", ex.method, ex.path, ex.code, ex.answered)
	}
	return nil
}

// awaitModified reads w until the MODIFIED event of name.
func awaitModified(w watch.Interface, name string) error {
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return fmt.Errorf("the watch ended before the update's event")
			}
			if ev.Type == watch.Error {
				return fmt.Errorf("watch error: %v", ev.Object)
			}
			if m, isMeta := ev.Object.(metav1.Object); ev.Type == watch.Modified && isMeta && m.GetName() == name {
				return nil
			}
		case <-timeout:
			return fmt.Errorf("no MODIFIED event in 10s")
		}
	}
}

func newObject(gvk schema.GroupVersionKind) runtime.Object {
	o, err := scheme.Scheme.New(gvk)
	if err != nil {
		panic(err)
	}
	return o
}

// labelled labels o clientgo=update and returns it.
func labelled(o runtime.Object) runtime.Object {
	m := o.(metav1.Object)
	l := m.GetLabels()
	if l == nil {
		l = map[string]string{}
	}
	l["clientgo"] = "update"
	m.SetLabels(l)
	return o
}

func listHas(list runtime.Object, name string) bool {
	items, err := metaItems(list)
	if err != nil {
		return false
	}
	return slices.Contains(items, name)
}

// metaItems are the names of a typed list's items.
func metaItems(list runtime.Object) ([]string, error) {
	objs, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.(metav1.Object).GetName())
	}
	sort.Strings(names)
	return names, nil
}

// csrPEM is a base64 PEM certificate request.
func csrPEM(t *testing.T) string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, key)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
}
