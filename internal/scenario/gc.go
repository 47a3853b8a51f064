// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// The garbage collector, as kube-controller-manager runs it beside the API
// server: what a deletion does to the objects that name the deleted one in
// their ownerReferences.

const holdFinalizer = "kubeloop.dev/hold"

// owned returns a ConfigMap in the fixture's namespace with owner
// references to owners (blocking their deletion when block is set).
func (f *fixture) owned(name string, block bool, owners ...*kube.ConfigMap) *kube.ConfigMap {
	cm := f.configMap(name, nil, nil)
	for _, o := range owners {
		ref := kube.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: o.Name, UID: o.UID}
		if block {
			ref.BlockOwnerDeletion = &block
		}
		cm.OwnerReferences = append(cm.OwnerReferences, ref)
	}
	return cm
}

// gone answers nil when the ConfigMap name is not found.
func (f *fixture) gone(name string) func() error {
	return func() error {
		var cm kube.ConfigMap
		err := f.c.Get(f.ctx, kube.Key{Namespace: f.ns, Name: name}, &cm)
		if kube.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("configmap %s still there (deletionTimestamp %v, finalizers %v)", name, cm.DeletionTimestamp, cm.Finalizers)
	}
}

// getCM reads the ConfigMap name.
func (f *fixture) getCM(t *testing.T, name string) *kube.ConfigMap {
	t.Helper()
	var cm kube.ConfigMap
	if err := f.c.Get(f.ctx, kube.Key{Namespace: f.ns, Name: name}, &cm); err != nil {
		t.Fatalf("get configmap %s: %v", name, err)
	}
	return &cm
}

// release removes the hold finalizer of the ConfigMap name.
func (f *fixture) release(t *testing.T, name string) {
	t.Helper()
	cm := f.getCM(t, name)
	cm.RemoveFinalizer(holdFinalizer)
	if err := f.c.Update(f.ctx, cm); err != nil {
		t.Fatalf("remove finalizer of %s: %v", name, err)
	}
}

// deleteWith deletes the ConfigMap name with propagation and returns the
// answer, the object marked deleting.
func (f *fixture) deleteWith(t *testing.T, name string, propagation kube.PropagationPolicy) *kube.ConfigMap {
	t.Helper()
	r := f.send(t, "DELETE", "/api/v1/namespaces/"+f.ns+"/configmaps/"+name, "application/json",
		`{"propagationPolicy":"`+string(propagation)+`"}`)
	if r.code != 200 {
		t.Fatalf("delete %s with %s = %d %s", name, propagation, r.code, r.body)
	}
	var cm kube.ConfigMap
	if err := json.Unmarshal(r.body, &cm); err != nil {
		t.Fatalf("decode answer %s: %v", r.body, err)
	}
	return &cm
}

func ownerNames(cm *kube.ConfigMap) []string {
	var out []string
	for _, r := range cm.OwnerReferences {
		out = append(out, r.Name)
	}
	return out
}

// testGCBackground: deleting an owner (default propagation, Background)
// removes it at once; its dependents are then deleted, and one with a
// finalizer is marked deleting and stays until the finalizer goes.
func testGCBackground(t *testing.T, f *fixture) {
	f.needControllers(t)
	owner := f.configMap("owner", nil, nil)
	f.mustCreate(t, owner)
	f.mustCreate(t, f.owned("dep", false, owner))
	held := f.owned("held", true, owner)
	held.Finalizers = []string{holdFinalizer}
	f.mustCreate(t, held)
	other := f.configMap("bystander", nil, nil)
	f.mustCreate(t, other)

	if err := f.c.Delete(f.ctx, owner); err != nil {
		t.Fatal(err)
	}
	if err := f.gone("owner")(); err != nil {
		t.Fatalf("owner after a background delete: %v", err)
	}
	f.settled(t, "dependent collected", f.gone("dep"))
	f.settled(t, "dependent with a finalizer marked deleting", func() error {
		cm := f.getCM(t, "held")
		if cm.DeletionTimestamp == nil {
			return errors.New("held has no deletionTimestamp")
		}
		return nil
	})
	if cm := f.getCM(t, "bystander"); cm.DeletionTimestamp != nil {
		t.Errorf("an object without owners was deleted: %v", cm.DeletionTimestamp)
	}
	f.release(t, "held")
	if err := f.gone("held")(); err != nil {
		t.Errorf("held after its finalizer went: %v", err)
	}
}

// testGCForeground: an owner deleted with propagationPolicy Foreground gets
// the foregroundDeletion finalizer and stays while a dependent that blocks
// it (blockOwnerDeletion) exists; dependents that do not block are deleted
// too but do not hold it.
func testGCForeground(t *testing.T, f *fixture) {
	f.needControllers(t)
	owner := f.configMap("owner", nil, nil)
	f.mustCreate(t, owner)
	held := f.owned("held", true, owner)
	held.Finalizers = []string{holdFinalizer}
	f.mustCreate(t, held)
	f.mustCreate(t, f.owned("loose", false, owner))

	if got := f.deleteWith(t, "owner", kube.PropagationForeground); got.DeletionTimestamp == nil ||
		!slices.Equal(got.Finalizers, []string{"foregroundDeletion"}) {
		t.Errorf("answer to a foreground delete: deletionTimestamp %v finalizers %q, want set and [foregroundDeletion]",
			got.DeletionTimestamp, got.Finalizers)
	}
	f.settled(t, "non-blocking dependent collected", f.gone("loose"))
	f.settled(t, "blocking dependent marked deleting", func() error {
		if cm := f.getCM(t, "held"); cm.DeletionTimestamp == nil {
			return errors.New("held has no deletionTimestamp")
		}
		return nil
	})
	if cm := f.getCM(t, "owner"); cm.DeletionTimestamp == nil || !slices.Equal(cm.Finalizers, []string{"foregroundDeletion"}) {
		t.Errorf("owner while a blocking dependent remains: deletionTimestamp %v finalizers %q, want set and [foregroundDeletion]",
			cm.DeletionTimestamp, cm.Finalizers)
	}
	f.release(t, "held")
	f.settled(t, "owner gone after its blocking dependent", f.gone("owner"))
}

// testGCOrphan: an owner deleted with propagationPolicy Orphan gets the
// orphan finalizer; its dependents lose their references to it (and the
// field when none is left) and stay; then the owner goes.
func testGCOrphan(t *testing.T, f *fixture) {
	f.needControllers(t)
	a, b := f.configMap("a", nil, nil), f.configMap("b", nil, nil)
	f.mustCreate(t, a)
	f.mustCreate(t, b)
	f.mustCreate(t, f.owned("only-a", true, a))
	f.mustCreate(t, f.owned("a-and-b", false, a, b))

	if got := f.deleteWith(t, "a", kube.PropagationOrphan); got.DeletionTimestamp == nil || !slices.Equal(got.Finalizers, []string{"orphan"}) {
		t.Errorf("answer to an orphan delete: deletionTimestamp %v finalizers %q, want set and [orphan]", got.DeletionTimestamp, got.Finalizers)
	}
	f.settled(t, "orphaning owner gone", f.gone("a"))
	if cm := f.getCM(t, "only-a"); cm.DeletionTimestamp != nil || cm.OwnerReferences != nil {
		t.Errorf("orphaned dependent: deletionTimestamp %v ownerReferences %v, want neither", cm.DeletionTimestamp, cm.OwnerReferences)
	}
	if cm := f.getCM(t, "a-and-b"); cm.DeletionTimestamp != nil || !slices.Equal(ownerNames(cm), []string{"b"}) {
		t.Errorf("dependent of two owners: deletionTimestamp %v owners %q, want none and [b]", cm.DeletionTimestamp, ownerNames(cm))
	}
}

// testGCDangling: an object created with an owner reference to an object
// that does not exist is collected; one that also has an existing owner
// only loses the dangling reference. A reference of the right name but
// another uid dangles too.
func testGCDangling(t *testing.T, f *fixture) {
	f.needControllers(t)
	b := f.configMap("b", nil, nil)
	f.mustCreate(t, b)
	missing := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Name: "missing", UID: "11111111-2222-3333-4444-555555555555"}}
	impostor := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Name: "b", UID: "66666666-2222-3333-4444-555555555555"}}
	f.mustCreate(t, f.owned("dangling", false, missing))
	f.mustCreate(t, f.owned("wrong-uid", false, impostor))
	f.mustCreate(t, f.owned("half", false, missing, b))

	f.settled(t, "dangling dependent collected", f.gone("dangling"))
	f.settled(t, "dependent of a same-named owner with another uid collected", f.gone("wrong-uid"))
	f.settled(t, "dangling reference removed", func() error {
		cm := f.getCM(t, "half")
		if cm.DeletionTimestamp != nil || !slices.Equal(ownerNames(cm), []string{"b"}) {
			return fmt.Errorf("deletionTimestamp %v owners %q, want none and [b]", cm.DeletionTimestamp, ownerNames(cm))
		}
		return nil
	})
}

// testDeleteOptionsValidation: DeleteOptions are validated before anything
// is deleted, with the real messages.
func testDeleteOptionsValidation(t *testing.T, f *fixture) {
	f.mustCreate(t, f.configMap("keep", nil, nil))
	p := "/api/v1/namespaces/" + f.ns + "/configmaps/keep"
	for _, tc := range []struct{ name, query, body, message string }{
		{"both set", "", `{"orphanDependents":true,"propagationPolicy":"Foreground"}`,
			`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be both set`},
		{"both set in the query", "?orphanDependents=false&propagationPolicy=Orphan", "",
			`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set`},
		{"unknown policy", "?propagationPolicy=Later", "",
			`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Later": supported values: "Foreground", "Background", "Orphan", "nil"`},
	} {
		r := f.send(t, "DELETE", p+tc.query, "application/json", tc.body)
		expectStatus(t, tc.name, r, 422, "Invalid", tc.message)
	}
	if cm := f.getCM(t, "keep"); cm.DeletionTimestamp != nil {
		t.Errorf("a refused delete marked the object deleting")
	}
}

// testOwnerReferenceValidation: owner references are validated on every
// write as the real server validates them, with its 422 messages: each
// field required (the apiVersion must hold a version), at most one
// controller, and no Event as owner. The messages are the server's minor's
// (ownerRefMessages).
func testOwnerReferenceValidation(t *testing.T, f *fixture) {
	p := "/api/v1/namespaces/" + f.ns + "/configmaps"
	const prefix = `ConfigMap "v" is invalid: `
	m := ownerRefMessages(f.minor(t))
	for _, tc := range []struct{ name, refs, message string }{
		{"no uid", `[{"apiVersion":"v1","kind":"ConfigMap","name":"a"}]`, m.empty("uid")},
		{"no apiVersion", `[{"kind":"ConfigMap","name":"a","uid":"u1"}]`, m.empty("apiVersion")},
		{"malformed apiVersion", `[{"apiVersion":"v1/x/y","kind":"ConfigMap","name":"a","uid":"u1"}]`, m.badVersion("v1/x/y")},
		{"group without version", `[{"apiVersion":"apps/","kind":"Deployment","name":"a","uid":"u1"}]`, m.badVersion("apps/")},
		{"no kind", `[{"apiVersion":"v1","name":"a","uid":"u1"}]`, m.empty("kind")},
		{"no name", `[{"apiVersion":"v1","kind":"ConfigMap","uid":"u1"}]`, m.empty("name")},
		{"all empty", `[{"apiVersion":"","kind":"","name":"","uid":""}]`,
			"[" + m.empty("apiVersion") + ", " + m.empty("kind") + ", " + m.empty("name") + ", " + m.empty("uid") + "]"},
		{"two controllers", `[{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"u1","controller":true},` +
			`{"apiVersion":"v1","kind":"ConfigMap","name":"b","uid":"u2"},{"apiVersion":"v1","kind":"Secret","name":"c","uid":"u3","controller":true}]`,
			`metadata.ownerReferences: Invalid value: ` + m.refs(
				[]string{`{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"u1","controller":true}`,
					`{"apiVersion":"v1","kind":"ConfigMap","name":"b","uid":"u2"}`, `{"apiVersion":"v1","kind":"Secret","name":"c","uid":"u3","controller":true}`},
				[]string{goOwnerRef("ConfigMap", "a", "u1", true, false), goOwnerRef("ConfigMap", "b", "u2", false, false), goOwnerRef("Secret", "c", "u3", true, false)}) +
				`: Only one reference can have Controller set to true. Found "true" in references for ConfigMap/a and Secret/c`},
		{"event owner", `[{"blockOwnerDeletion":true,"apiVersion":"v1","kind":"Event","name":"a","uid":"u1","controller":false}]`,
			m.ref + `: Invalid value: ` + m.value(`{"apiVersion":"v1","kind":"Event","name":"a","uid":"u1","controller":false,"blockOwnerDeletion":true}`,
				goOwnerRef("Event", "a", "u1", true, true)) + `: /v1, Kind=Event is disallowed from being an owner`},
	} {
		r := f.send(t, "POST", p, "application/json", `{"metadata":{"name":"v","ownerReferences":`+tc.refs+`}}`)
		expectStatus(t, tc.name, r, 422, "Invalid", prefix+tc.message)
		if r.code == 201 {
			f.send(t, "DELETE", p+"/v", "", "")
		}
	}
}

// ownerRefWording is how a minor words the errors of the first owner
// reference: 1.37 names it by index (metadata.ownerReferences[0]) and
// calls an empty field a Required value; 1.33 to 1.36 name the list and
// call it an Invalid value "", 1.33 repeating the field's name in the
// detail.
type ownerRefWording struct {
	minor int
	ref   string // the path of the first reference
}

func ownerRefMessages(minor int) ownerRefWording {
	if minor >= minorNewest {
		return ownerRefWording{minor, "metadata.ownerReferences[0]"}
	}
	return ownerRefWording{minor, "metadata.ownerReferences"}
}

// empty is the error of the reference's field left empty.
func (w ownerRefWording) empty(field string) string {
	switch {
	case w.minor >= minorNewest:
		return w.ref + "." + field + ": Required value: must not be empty"
	case field == "apiVersion":
		return w.ref + `.apiVersion: Invalid value: "": version must not be empty`
	case w.minor <= minorOldest:
		return w.ref + "." + field + `: Invalid value: "": ` + field + " must not be empty"
	}
	return w.ref + "." + field + `: Invalid value: "": must not be empty`
}

// value is a reference printed as an error's value: in JSON, or on 1.33
// in Go syntax.
func (w ownerRefWording) value(json, goSyntax string) string {
	if goSyntaxValues(w.minor) {
		return goSyntax
	}
	return json
}

// refs is the list of references printed as an error's value.
func (w ownerRefWording) refs(json, goSyntax []string) string {
	if goSyntaxValues(w.minor) {
		return "[]v1.OwnerReference{" + strings.Join(goSyntax, ", ") + "}"
	}
	return "[" + strings.Join(json, ",") + "]"
}

// goOwnerRef is a v1.OwnerReference of a core kind in Go syntax, its
// controller and blockOwnerDeletion set (to any value) or nil.
func goOwnerRef(kind, name, uid string, controllerSet, blockSet bool) string {
	ptr := func(set bool) string {
		if set {
			return "(*bool)" + pointerMask
		}
		return "(*bool)(nil)"
	}
	return fmt.Sprintf(`v1.OwnerReference{APIVersion:"v1", Kind:%q, Name:%q, UID:%q, Controller:%s, BlockOwnerDeletion:%s}`,
		kind, name, uid, ptr(controllerSet), ptr(blockSet))
}

// badVersion is the error of an apiVersion that holds no version.
func (w ownerRefWording) badVersion(apiVersion string) string {
	if w.minor >= minorNewest {
		return w.ref + `.apiVersion: Invalid value: "` + apiVersion + `": must be <group>/<version> or <version>`
	}
	return w.ref + `.apiVersion: Invalid value: "` + apiVersion + `": version must not be empty`
}

// testGCClusterScopedOwner: a namespaced object may be owned by a
// cluster-scoped one (here a Namespace, owner of a ConfigMap in another
// namespace); it is collected once its owner is gone.
func testGCClusterScopedOwner(t *testing.T, f *fixture) {
	f.needControllers(t)
	ns := f.ns + "-owner"
	r := f.send(t, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"`+ns+`"}}`)
	if r.code != 201 {
		t.Fatalf("create namespace = %d %s", r.code, r.body)
	}
	meta, _ := r.object(t)["metadata"].(map[string]any)
	uid, _ := meta["uid"].(string)
	cm := f.configMap("ns-owned", nil, nil)
	cm.OwnerReferences = []kube.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: ns, UID: uid}}
	f.mustCreate(t, cm)
	if r := f.send(t, "DELETE", "/api/v1/namespaces/"+ns, "", ""); r.code != 200 {
		t.Fatalf("delete namespace = %d %s", r.code, r.body)
	}
	f.settled(t, "dependent of a deleted namespace collected", f.gone("ns-owned"))
}

// testGCOwnerInOtherNamespace: a reference whose uid is an object in
// another namespace dangles (owners are looked up in the dependent's
// namespace), so the dependent is collected, and the collector records a
// Warning Event about it.
func testGCOwnerInOtherNamespace(t *testing.T, f *fixture) {
	f.needControllers(t)
	other := f.ns + "-other"
	if r := f.send(t, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"`+other+`"}}`); r.code != 201 {
		t.Fatalf("create namespace = %d %s", r.code, r.body)
	}
	t.Cleanup(func() { f.send(t, "DELETE", "/api/v1/namespaces/"+other, "", "") })
	owner := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: other, Name: "owner"}}
	f.mustCreate(t, owner)
	dep := f.owned("dep", false, owner)
	f.mustCreate(t, dep)
	f.settled(t, "dependent of an owner in another namespace collected", f.gone("dep"))

	want := invalidNamespaceEvent(fmt.Sprintf("ownerRef [v1/ConfigMap, namespace: %s, name: owner, uid: %s] does not exist in namespace %q", f.ns, owner.UID, f.ns))
	want.InvolvedObject.Kind, want.InvolvedObject.Namespace, want.InvolvedObject.Name = "ConfigMap", f.ns, "dep"
	want.InvolvedObject.UID, want.InvolvedObject.APIVersion = dep.UID, "v1"
	f.oneEvent(t, "the collector's Warning event", "/api/v1/namespaces/"+f.ns+"/events?fieldSelector=reason%3DOwnerRefInvalidNamespace", want)
}

// gcEvent is what the collector's scenarios check of an Event.
type gcEvent struct {
	InvolvedObject        struct{ Kind, Namespace, Name, UID, APIVersion string }
	Reason, Message, Type string
	Source                struct{ Component string }
	Count                 int
	ReportingComponent    string
}

// invalidNamespaceEvent is the collector's OwnerRefInvalidNamespace
// Warning with message, its involved object left for the caller.
func invalidNamespaceEvent(message string) gcEvent {
	e := gcEvent{Reason: "OwnerRefInvalidNamespace", Type: "Warning", Count: 1, ReportingComponent: "garbage-collector-controller",
		Message: message}
	e.Source.Component = "garbage-collector-controller"
	return e
}

// oneEvent waits until the Events listed at path are want alone.
func (f *fixture) oneEvent(t *testing.T, what, path string, want gcEvent) {
	t.Helper()
	f.settled(t, what, func() error {
		r := f.send(t, "GET", path, "", "")
		var list struct{ Items []gcEvent }
		if err := json.Unmarshal(r.body, &list); err != nil {
			return fmt.Errorf("list events = %d %s", r.code, r.body)
		}
		if len(list.Items) != 1 || list.Items[0] != want {
			return fmt.Errorf("events %+v, want one %+v", list.Items, want)
		}
		return nil
	})
}

// testGCForegroundChain: a foreground deletion goes down a chain of
// owners: a blocking dependent that has dependents of its own is deleted in
// the foreground too, so each owner waits for the one below it.
func testGCForegroundChain(t *testing.T, f *fixture) {
	f.needControllers(t)
	a := f.configMap("a", nil, nil)
	f.mustCreate(t, a)
	b := f.owned("b", true, a)
	f.mustCreate(t, b)
	c := f.owned("c", true, b)
	c.Finalizers = []string{holdFinalizer}
	f.mustCreate(t, c)

	f.deleteWith(t, "a", kube.PropagationForeground)
	f.settled(t, "the chain marked deleting", func() error {
		for _, want := range []struct {
			name string
			fins []string
		}{{"a", []string{"foregroundDeletion"}}, {"b", []string{"foregroundDeletion"}}, {"c", []string{holdFinalizer}}} {
			cm := f.getCM(t, want.name)
			if cm.DeletionTimestamp == nil || !slices.Equal(cm.Finalizers, want.fins) {
				return fmt.Errorf("%s: deletionTimestamp %v finalizers %q, want set and %q", want.name, cm.DeletionTimestamp, cm.Finalizers, want.fins)
			}
		}
		return nil
	})
	f.release(t, "c")
	f.settled(t, "the chain gone", func() error {
		return errors.Join(f.gone("a")(), f.gone("b")(), f.gone("c")())
	})
}

// testGCCustomResource: custom resources own and are owned as built-in
// kinds are (the real collector finds a new CRD's resource at its next
// discovery, within 30 s; kubetest at once).
func testGCCustomResource(t *testing.T, f *fixture) {
	f.needControllers(t)
	gvk := f.installWidgets(t)
	widget := func(name string, owners ...kube.OwnerReference) *kube.Unstructured {
		w := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: name, OwnerReferences: owners}}
		w.SetGroupVersionKind(gvk)
		w.SetField(map[string]any{"size": 1}, "spec")
		return w
	}
	owner := widget("owner")
	f.mustCreate(t, owner)
	cm := f.configMap("of-widget", nil, nil)
	cm.OwnerReferences = []kube.OwnerReference{{APIVersion: gvk.Group + "/" + gvk.Version, Kind: gvk.Kind, Name: "owner", UID: owner.UID}}
	f.mustCreate(t, cm)
	cmOwner := f.configMap("cm-owner", nil, nil)
	f.mustCreate(t, cmOwner)
	dep := widget("of-configmap", kube.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "cm-owner", UID: cmOwner.UID})
	f.mustCreate(t, dep)

	if err := f.c.Delete(f.ctx, owner); err != nil {
		t.Fatal(err)
	}
	f.settled(t, "configmap owned by a deleted custom resource collected", f.gone("of-widget"))
	if err := f.c.Delete(f.ctx, cmOwner); err != nil {
		t.Fatal(err)
	}
	f.settled(t, "custom resource owned by a deleted configmap collected", func() error {
		got := &kube.Unstructured{}
		got.SetGroupVersionKind(gvk)
		err := f.c.Get(f.ctx, dep.Key(), got)
		if kube.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("widget of-configmap: %v (deletionTimestamp %v)", err, got.DeletionTimestamp)
	})
}

// testGCForegroundCycle: two objects that own each other, both blocking:
// a foreground deletion of one does not wait for ever, as the collector
// makes the references of the second non-blocking; both go.
func testGCForegroundCycle(t *testing.T, f *fixture) {
	f.needControllers(t)
	a := f.configMap("a", nil, nil)
	f.mustCreate(t, a)
	b := f.owned("b", true, a)
	f.mustCreate(t, b)
	yes := true
	a.OwnerReferences = []kube.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "b", UID: b.UID, BlockOwnerDeletion: &yes}}
	if err := f.c.Update(f.ctx, a); err != nil {
		t.Fatal(err)
	}
	f.deleteWith(t, "a", kube.PropagationForeground)
	f.settled(t, "the cycle gone", func() error {
		return errors.Join(f.gone("a")(), f.gone("b")())
	})
}

// testGCNamespacedOwnerOfClusterScoped: a cluster-scoped object (a
// Namespace) whose owner reference names by uid a namespaced object (a
// ConfigMap) cannot be owned by it: the collector keeps the object and
// records its Warning Event in namespace default, the involved object
// without a namespace.
func testGCNamespacedOwnerOfClusterScoped(t *testing.T, f *fixture) {
	f.needControllers(t)
	owner := f.configMap("owner", nil, nil)
	f.mustCreate(t, owner)
	owned := f.ns + "-owned"
	r := f.send(t, "POST", "/api/v1/namespaces", "application/json", fmt.Sprintf(
		`{"metadata":{"name":%q,"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":%q}]}}`, owned, owner.UID))
	if r.code != 201 {
		t.Fatalf("create owned namespace = %d %s", r.code, r.body)
	}
	t.Cleanup(func() { f.send(t, "DELETE", "/api/v1/namespaces/"+owned, "", "") })
	uid, _ := r.object(t)["metadata"].(map[string]any)["uid"].(string)

	want := invalidNamespaceEvent(fmt.Sprintf(`ownerRef [v1/ConfigMap, namespace: , name: owner, uid: %s] does not exist in namespace ""`, owner.UID))
	want.InvolvedObject.Kind, want.InvolvedObject.Name, want.InvolvedObject.UID, want.InvolvedObject.APIVersion = "Namespace", owned, uid, "v1"
	f.oneEvent(t, "the collector's Warning event in default", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D"+owned, want)
	if _, found := f.namespaceState(t, owned); !found {
		t.Error("the namespace with a namespaced owner was collected")
	}
}
