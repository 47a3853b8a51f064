// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// This file holds the scenarios of protobuf request bodies, which
// client-go's typed clients and kubectl's generators send for the built-in
// kinds, and the few encoders that write them by hand.

// protoBytes appends field num as a length-delimited protobuf field.
func protoBytes(b []byte, num int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// protoDeleteOptions encodes DeleteOptions as client-go sends them for
// built-in kinds: the "k8s\x00" magic and a runtime.Unknown holding the
// v1 DeleteOptions message.
func protoDeleteOptions(uidPrecondition string, dryRun bool) []byte {
	var opts []byte
	opts = binary.AppendUvarint(opts, 1<<3|0) // gracePeriodSeconds: 0
	opts = binary.AppendUvarint(opts, 0)
	if uidPrecondition != "" {
		opts = protoBytes(opts, 2, protoBytes(nil, 1, []byte(uidPrecondition)))
	}
	opts = protoBytes(opts, 4, []byte("Background"))
	if dryRun {
		opts = protoBytes(opts, 5, []byte("All"))
	}
	typeMeta := protoBytes(protoBytes(nil, 1, []byte("v1")), 2, []byte("DeleteOptions"))
	unknown := protoBytes(protoBytes(nil, 1, typeMeta), 2, opts)
	return append([]byte("k8s\x00"), unknown...)
}

// testProtobufDeleteOptions: DeleteOptions in protobuf (what client-go
// sends for built-in kinds) are honoured; a body in a type no server
// decodes is refused with 415 naming the types it does.
func testProtobufDeleteOptions(t *testing.T, f *fixture) {
	const pb = "application/vnd.kubernetes.protobuf"
	cm := f.configMap("pb", nil, nil)
	f.mustCreate(t, cm)
	path := "/api/v1/namespaces/" + f.ns + "/configmaps/pb"

	r := f.send(t, "DELETE", path, pb, string(protoDeleteOptions("00000000-0000-0000-0000-000000000000", false)))
	want := `Operation cannot be fulfilled on ConfigMap "pb": the UID in the precondition (00000000-0000-0000-0000-000000000000) ` +
		`does not match the UID in record (` + cm.UID + `). The object might have been deleted and then recreated`
	if st := statusOf(r); r.code != 409 || st.Reason != kube.ReasonConflict || st.Message != want {
		t.Errorf("protobuf DELETE with a wrong uid = %d %s %q, want 409 Conflict %q", r.code, st.Reason, st.Message, want)
	}
	if r := f.send(t, "DELETE", path, pb, string(protoDeleteOptions(cm.UID, true))); r.code != 200 {
		t.Errorf("protobuf dry-run DELETE = %d %s, want 200", r.code, r.body)
	}
	if err := f.c.Get(f.ctx, cm.Key(), &kube.ConfigMap{}); err != nil {
		t.Errorf("Get after a dry-run delete = %v, want the object", err)
	}
	r = f.send(t, "DELETE", path, "text/plain", "x")
	want = "the body of the request was in an unknown format - accepted media types include: " +
		"application/json, application/yaml, application/vnd.kubernetes.protobuf"
	if st := statusOf(r); r.code != 415 || st.Reason != kube.ReasonUnsupportedMedia || st.Message != want {
		t.Errorf("DELETE with a text body = %d %s %q, want 415 %q", r.code, st.Reason, st.Message, want)
	}
	r = f.send(t, "DELETE", path, pb, string(protoDeleteOptions(cm.UID, false)))
	if st := statusOf(r); r.code != 200 || st.Status != "Success" || st.Details == nil || st.Details.UID != cm.UID {
		t.Errorf("protobuf DELETE = %d %s, want 200 and a Success Status naming the object", r.code, r.body)
	}
	if err := f.c.Get(f.ctx, cm.Key(), &kube.ConfigMap{}); !kube.IsNotFound(err) {
		t.Errorf("Get after a protobuf delete = %v, want NotFound", err)
	}
}

// protoVarint appends field num as a varint.
func protoVarint(b []byte, num int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3)
	return binary.AppendUvarint(b, v)
}

// protoObject wraps an object's message in the protobuf envelope.
func protoObject(apiVersion, kind string, msg []byte) []byte {
	typeMeta := protoBytes(protoBytes(nil, 1, []byte(apiVersion)), 2, []byte(kind))
	return append([]byte("k8s\x00"), protoBytes(protoBytes(nil, 1, typeMeta), 2, msg)...)
}

// protoMeta is an ObjectMeta message with the label app=pb, and a
// resourceVersion when rv is not empty.
func protoMeta(name, namespace, rv string) []byte {
	m := protoBytes(nil, 1, []byte(name))
	m = protoBytes(m, 3, []byte(namespace))
	if rv != "" {
		m = protoBytes(m, 6, []byte(rv))
	}
	m = protoVarint(m, 7, 0) // generation 0: written by the Go encoder, omitted in JSON
	return protoMapEntry(m, 11, "app", []byte("pb"))
}

// protoMapEntry is one entry of a protobuf map field.
func protoMapEntry(b []byte, num int, key string, value []byte) []byte {
	return protoBytes(b, num, protoBytes(protoBytes(nil, 1, []byte(key)), 2, value))
}

// testProtobufObjects: objects of built-in kinds written in protobuf (as
// kubectl create and client-go typed clients send them) are stored as
// their JSON form would be: maps, bytes, quantities, int-or-strings,
// micro-times, and zero values of omitempty fields left out.
func testProtobufObjects(t *testing.T, f *fixture) {
	const pb = "application/vnd.kubernetes.protobuf"
	meta := func(name string) []byte { return protoMeta(name, f.ns, "") }
	cm := protoBytes(nil, 1, meta("pb-cm"))
	cm = protoMapEntry(cm, 2, "color", []byte("blue"))
	cm = protoMapEntry(cm, 3, "blob", []byte{0, 1, 2})
	r := f.send(t, "POST", "/api/v1/namespaces/"+f.ns+"/configmaps", pb, string(protoObject("v1", "ConfigMap", cm)))
	if r.code != 201 {
		t.Fatalf("protobuf ConfigMap create = %d %s", r.code, r.body)
	}
	var got kube.ConfigMap
	if err := f.c.Get(f.ctx, kube.Key{Namespace: f.ns, Name: "pb-cm"}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Data["color"] != "blue" || string(got.BinaryData["blob"]) != "\x00\x01\x02" || got.Labels["app"] != "pb" || got.Generation != 0 {
		t.Errorf("protobuf ConfigMap stored as data %v binaryData %v labels %v generation %d",
			got.Data, got.BinaryData, got.Labels, got.Generation)
	}

	container := protoBytes(nil, 1, []byte("app"))
	container = protoBytes(container, 2, []byte("nginx:1.27"))
	container = protoBytes(container, 6, protoVarint(protoBytes(nil, 1, []byte("http")), 3, 80))
	container = protoBytes(container, 7, protoBytes(protoBytes(nil, 1, []byte("MODE")), 2, []byte("fast")))
	limits := protoMapEntry(nil, 1, "cpu", protoBytes(nil, 1, []byte("500m")))
	container = protoBytes(container, 8, limits)
	podSpec := protoBytes(nil, 2, container)
	template := protoBytes(protoBytes(nil, 1, protoMapEntry(nil, 11, "app", []byte("pb"))), 2, podSpec)
	rolling := protoBytes(nil, 1, protoVarint(protoVarint(nil, 1, 0), 2, 1))               // maxUnavailable: 1
	rolling = protoBytes(rolling, 2, protoBytes(protoVarint(nil, 1, 1), 3, []byte("50%"))) // maxSurge: "50%"
	spec := protoVarint(nil, 1, 2)
	spec = protoBytes(spec, 2, protoMapEntry(nil, 1, "app", []byte("pb")))
	spec = protoBytes(spec, 3, template)
	spec = protoBytes(spec, 4, protoBytes(protoBytes(nil, 1, []byte("RollingUpdate")), 2, rolling))
	spec = protoVarint(spec, 7, 0) // paused: false, omitted in JSON
	deploy := protoBytes(protoBytes(nil, 1, meta("pb-deploy")), 2, spec)
	r = f.send(t, "POST", "/apis/apps/v1/namespaces/"+f.ns+"/deployments", pb, string(protoObject("apps/v1", "Deployment", deploy)))
	if r.code != 201 {
		t.Fatalf("protobuf Deployment create = %d %s", r.code, r.body)
	}
	d := f.getUnstructured(t, kube.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, f.ns, "pb-deploy")
	for path, want := range map[string]any{
		"spec.replicas": float64(2), "spec.strategy.rollingUpdate.maxUnavailable": float64(1),
		"spec.strategy.rollingUpdate.maxSurge": "50%", "spec.template.spec.containers.0.ports.0.containerPort": float64(80),
		"spec.template.spec.containers.0.env.0.value": "fast", "spec.template.spec.containers.0.resources.limits.cpu": "500m",
		"spec.selector.matchLabels.app": "pb",
	} {
		if got := fieldAt(d.Content, path); got != want {
			t.Errorf("protobuf Deployment %s = %v, want %v", path, got, want)
		}
	}
	if v := fieldAt(d.Content, "spec.paused"); v != nil {
		t.Errorf("spec.paused = %v, want it left out (false, omitempty)", v)
	}

	at := time.Date(2026, 11, 21, 4, 50, 0, 123456000, time.UTC)
	microTime := protoVarint(protoVarint(nil, 1, uint64(at.Unix())), 2, uint64(at.Nanosecond()))
	leaseSpec := protoBytes(nil, 1, []byte("holder-1"))
	leaseSpec = protoVarint(leaseSpec, 2, 15)
	leaseSpec = protoBytes(leaseSpec, 4, microTime)
	lease := protoBytes(protoBytes(nil, 1, meta("pb-lease")), 2, leaseSpec)
	r = f.send(t, "POST", "/apis/coordination.k8s.io/v1/namespaces/"+f.ns+"/leases", pb,
		string(protoObject("coordination.k8s.io/v1", "Lease", lease)))
	if r.code != 201 {
		t.Fatalf("protobuf Lease create = %d %s", r.code, r.body)
	}
	var l kube.Lease
	if err := f.c.Get(f.ctx, kube.Key{Namespace: f.ns, Name: "pb-lease"}, &l); err != nil {
		t.Fatal(err)
	}
	if l.Spec.RenewTime == nil || !l.Spec.RenewTime.Equal(at) || *l.Spec.LeaseDurationSeconds != 15 || *l.Spec.HolderIdentity != "holder-1" {
		t.Errorf("protobuf Lease spec = %+v, want holder-1, 15 s, renewed at %v", l.Spec, at)
	}
}

// testProtobufUpdates: updates in protobuf (client-go's Update and
// UpdateStatus of built-in kinds) replace the object, keep optimistic
// concurrency (a stale resourceVersion answers 409 Conflict), and on the
// status subresource change the status alone (a Deployment's status
// update also keeps the old labels).
func testProtobufUpdates(t *testing.T, f *fixture) {
	const pb = "application/vnd.kubernetes.protobuf"
	cm := f.configMap("pb-put", nil, map[string]string{"color": "blue"})
	f.mustCreate(t, cm)
	path := "/api/v1/namespaces/" + f.ns + "/configmaps/pb-put"
	body := func(rv, color string) string {
		msg := protoBytes(nil, 1, protoMeta("pb-put", f.ns, rv))
		return string(protoObject("v1", "ConfigMap", protoMapEntry(msg, 2, "color", []byte(color))))
	}
	if r := f.send(t, "PUT", path, pb, body(cm.ResourceVersion, "green")); r.code != 200 {
		t.Fatalf("protobuf ConfigMap update = %d %s, want 200", r.code, r.body)
	}
	var got kube.ConfigMap
	if err := f.c.Get(f.ctx, cm.Key(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Data["color"] != "green" || got.Labels["app"] != "pb" || got.ResourceVersion == cm.ResourceVersion {
		t.Errorf("after a protobuf update: data %v labels %v resourceVersion %s (was %s), want color green, app=pb, a new version",
			got.Data, got.Labels, got.ResourceVersion, cm.ResourceVersion)
	}
	r := f.send(t, "PUT", path, pb, body(cm.ResourceVersion, "red"))
	want := `Operation cannot be fulfilled on configmaps "pb-put": the object has been modified; ` +
		`please apply your changes to the latest version and try again`
	if st := statusOf(r); r.code != 409 || st.Reason != kube.ReasonConflict || st.Message != want {
		t.Errorf("protobuf update with a stale resourceVersion = %d %s %q, want 409 Conflict %q", r.code, st.Reason, st.Message, want)
	}

	d := f.deployment("pb-status")
	f.mustCreate(t, d)
	status := protoVarint(protoVarint(nil, 1, 7), 2, 3) // observedGeneration 7, replicas 3
	msg := protoBytes(protoBytes(nil, 1, protoMeta("pb-status", f.ns, d.ResourceVersion)), 3, status)
	r = f.send(t, "PUT", "/apis/apps/v1/namespaces/"+f.ns+"/deployments/pb-status/status", pb,
		string(protoObject("apps/v1", "Deployment", msg)))
	if r.code != 200 {
		t.Fatalf("protobuf Deployment status update = %d %s, want 200", r.code, r.body)
	}
	after := f.getUnstructured(t, kube.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, f.ns, "pb-status")
	for path, want := range map[string]any{
		"status.observedGeneration": float64(7), "status.replicas": float64(3),
		"spec.selector.matchLabels.app": "pb-status",
	} {
		if got := fieldAt(after.Content, path); got != want {
			t.Errorf("after a protobuf status update, %s = %v, want %v", path, got, want)
		}
	}
	if len(after.Labels) != 0 {
		t.Errorf("a status update set the labels %v; a Deployment's status update keeps the old labels", after.Labels)
	}
}
