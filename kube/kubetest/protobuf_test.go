// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"context"
	"encoding/binary"
	"io"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
)

const acceptProtobuf = "application/vnd.kubernetes.protobuf"

// protoBody builds a protobuf request body from a JSON object.
func protoBody(t *testing.T, js string) string {
	t.Helper()
	o, err := decodeObject([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	b, ok, err := protobuf.EncodeObject(o)
	if !ok || err != nil {
		t.Fatalf("encode %s: ok=%v %v", js, ok, err)
	}
	return string(b)
}

// protoAnswer checks r is a protobuf answer with code and decodes it.
func protoAnswer(t *testing.T, r response, code int) obj {
	t.Helper()
	if r.code != code || r.header.Get("Content-Type") != acceptProtobuf {
		t.Fatalf("answer %d %q, want %d in protobuf: %q", r.code, r.header.Get("Content-Type"), code, r.body)
	}
	o, ok, err := protobuf.DecodeObject(r.body)
	if !ok || err != nil {
		t.Fatalf("decode answer: ok=%v %v", ok, err)
	}
	return o
}

// TestProtobufWrites checks that a client-go style client (protobuf bodies,
// protobuf preferred) creates, reads, lists and deletes kinds beyond the
// first few (a Node, a ClusterRole), and gets its errors as protobuf
// Statuses; a Table is never protobuf.
func TestProtobufWrites(t *testing.T) {
	_, c := newTestServer(t, Options{})
	pb := []string{"Content-Type", acceptProtobuf, "Accept", acceptProtobuf + ", application/json"}
	node := protoBody(t, `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"a":"b"}},"spec":{"unschedulable":true,"taints":[{"key":"k","effect":"NoSchedule"}]}}`)
	got := protoAnswer(t, c.do("POST", "/api/v1/nodes", node, pb...), 201)
	if field(got, "metadata.name") != "n1" || field(got, "spec.unschedulable") != true || field(got, "metadata.uid") == nil {
		t.Errorf("created node = %v", got)
	}
	role := protoBody(t, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"r1"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]}`)
	protoAnswer(t, c.do("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", role, pb...), 201)
	got = protoAnswer(t, c.do("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/r1", "", pb...), 200)
	if rules, _ := got["rules"].([]any); len(rules) != 1 || field(rules[0].(obj), "verbs") == nil {
		t.Errorf("read role = %v", got)
	}
	list := protoAnswer(t, c.do("GET", "/api/v1/nodes", "", pb...), 200)
	if list["kind"] != "NodeList" || len(list["items"].([]any)) != 1 || field(list, "metadata.resourceVersion") == "" {
		t.Errorf("node list = %v", list)
	}
	st := protoAnswer(t, c.do("GET", "/api/v1/nodes/nope", "", pb...), 404)
	if st["kind"] != "Status" || st["reason"] != "NotFound" {
		t.Errorf("404 = %v", st)
	}
	for accept, want := range map[string]string{ // as kube-apiserver 1.36.3 answered (curl)
		acceptProtobuf + ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1":                    "application/json",
		acceptProtobuf + ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1, " + acceptProtobuf: acceptProtobuf,
		"application/json, " + acceptProtobuf:                                              "application/json",
	} {
		if r := c.do("GET", "/api/v1/nodes/nope", "", "Accept", accept); r.code != 404 || r.header.Get("Content-Type") != want {
			t.Errorf("404 to %q: %d in %q, want %s", accept, r.code, r.header.Get("Content-Type"), want)
		}
	}
	protoAnswer(t, c.do("DELETE", "/api/v1/nodes/n1", "", pb...), 200)
	if r := c.do("GET", "/api/v1/nodes", "", "Accept", acceptProtobuf+";as=Table;v=v1;g=meta.k8s.io"); r.code != 406 {
		t.Errorf("a protobuf Table = %d, want 406", r.code)
	}
}

// TestProtobufCustomResources checks custom resources stay JSON: protobuf
// alone is refused (406), the metadata projection is protobuf, and errors
// are protobuf Statuses when the Accept header's first plain type is
// protobuf, as kube-apiserver 1.36.3 writes them (captured with curl: the
// 406 and the 404 to "protobuf, json" in protobuf, the 404 to a
// protobuf metadata projection in JSON).
func TestProtobufCustomResources(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustDo(201, "POST", crdPath, widgetCRD)
	c.mustDo(201, "POST", widgets, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`)
	if st := protoAnswer(t, c.do("GET", widgets+"/w", "", "Accept", acceptProtobuf), 406); st["reason"] != "NotAcceptable" {
		t.Errorf("a custom resource in protobuf: %v, want a 406 Status in protobuf", st)
	}
	if st := protoAnswer(t, c.do("GET", widgets+"/nope", "", "Accept", acceptProtobuf+", application/json"), 404); st["reason"] != "NotFound" {
		t.Errorf("a missing custom resource: %v, want a 404 Status in protobuf", st)
	}
	if r := c.do("GET", widgets+"/nope", "", "Accept", acceptProtobuf+";as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json"); r.code != 404 || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("a missing custom resource's metadata: %d %s, want a 404 in JSON", r.code, r.header.Get("Content-Type"))
	}
	if r := c.do("GET", widgets+"/w", "", "Accept", acceptProtobuf+", application/json"); r.code != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("a custom resource with a JSON fallback = %d %s", r.code, r.header.Get("Content-Type"))
	}
	got := protoAnswer(t, c.do("GET", widgets, "", "Accept", acceptProtobuf+";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"), 200)
	if got["kind"] != "PartialObjectMetadataList" || field(got["items"].([]any)[0].(obj), "metadata.name") != "w" {
		t.Errorf("metadata list = %v", got)
	}
}

// TestProtobufWatch checks a protobuf watch: length-prefixed WatchEvent
// frames, each object a protobuf body.
func TestProtobufWatch(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createCM(c, "a", `{"x":"y"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := c.open(ctx, "GET", cmPath+"?watch=1&resourceVersion=0", "", "Accept", acceptProtobuf)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != protobuf.WatchMediaType {
		t.Fatalf("watch Content-Type = %q", ct)
	}
	var size [4]byte
	if _, err := io.ReadFull(resp.Body, size[:]); err != nil {
		t.Fatal(err)
	}
	msg := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(resp.Body, msg); err != nil {
		t.Fatal(err)
	}
	typ, o, err := protobuf.DecodeWatchEvent(msg)
	if err != nil || typ != "ADDED" || o["kind"] != "ConfigMap" || field(o, "metadata.name") != "a" || field(o, "metadata.labels.x") != "y" {
		t.Errorf("first event = %s %v %v", typ, o, err)
	}
}
