// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// testPodSubresources checks the subresources tools find in discovery
// and use: every subresource of the core group listed (exec and proxy,
// which need a kubelet, included), pods/ephemeralcontainers (kubectl
// debug), pods/resize, replicationcontrollers/scale (kubectl scale rc),
// and what the connect subresources answer for a pod no node runs.
func testPodSubresources(t *testing.T, f *fixture) {
	t.Run("Discovery", func(t *testing.T) { testSubresourceDiscovery(t, f) })
	t.Run("EphemeralContainers", func(t *testing.T) { testEphemeralContainers(t, f) })
	t.Run("Resize", func(t *testing.T) { testPodResize(t, f) })
	t.Run("ConnectWithoutNode", func(t *testing.T) { testConnectWithoutNode(t, f) })
	t.Run("ScaleReplicationController", func(t *testing.T) { testScaleReplicationController(t, f) })
}

// testSubresourceDiscovery checks /api/v1's subresources, their kinds
// and verbs, and their order in aggregated discovery.
func testSubresourceDiscovery(t *testing.T, f *fixture) {
	r := f.send(t, "GET", "/api/v1", "", "")
	var list struct {
		Resources []struct {
			Name, Kind, Group, Version string
			Verbs                      []string
		}
	}
	if err := json.Unmarshal(r.body, &list); err != nil || r.code != 200 {
		t.Fatalf("GET /api/v1 = %d %s", r.code, r.body)
	}
	var got []string
	for _, res := range list.Resources {
		if strings.Contains(res.Name, "/") {
			got = append(got, res.Name+" "+strings.Trim(res.Group+"/"+res.Version, "/")+" "+res.Kind+" "+strings.Join(res.Verbs, ","))
		}
	}
	want := []string{
		"namespaces/finalize  Namespace update", "namespaces/status  Namespace get,patch,update",
		"nodes/proxy  NodeProxyOptions create,delete,get,patch,update", "nodes/status  Node get,patch,update",
		"persistentvolumeclaims/status  PersistentVolumeClaim get,patch,update",
		"persistentvolumes/status  PersistentVolume get,patch,update",
		"pods/attach  PodAttachOptions create,get", "pods/binding  Binding create",
		"pods/ephemeralcontainers  Pod get,patch,update", "pods/eviction policy/v1 Eviction create",
		"pods/exec  PodExecOptions create,get", "pods/log  Pod get", "pods/portforward  PodPortForwardOptions create,get",
		"pods/proxy  PodProxyOptions create,delete,get,patch,update", "pods/resize  Pod get,patch,update",
		"pods/status  Pod get,patch,update", "replicationcontrollers/scale autoscaling/v1 Scale get,patch,update",
		"replicationcontrollers/status  ReplicationController get,patch,update",
		"resourcequotas/status  ResourceQuota get,patch,update",
		"serviceaccounts/token authentication.k8s.io/v1 TokenRequest create",
		"services/proxy  ServiceProxyOptions create,delete,get,patch,update", "services/status  Service get,patch,update",
	}
	if !slices.Equal(got, want) {
		t.Errorf("/api/v1 subresources:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	r = f.send(t, "GET", "/api", "", "", "Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	var agg struct {
		Items []struct {
			Versions []struct {
				Resources []struct {
					Resource     string
					Subresources []struct{ Subresource string }
				}
			}
		}
	}
	if err := json.Unmarshal(r.body, &agg); err != nil || r.code != 200 || len(agg.Items) != 1 {
		t.Fatalf("aggregated /api = %d %s", r.code, r.body)
	}
	for _, res := range agg.Items[0].Versions[0].Resources {
		if res.Resource != "pods" {
			continue
		}
		var subs []string
		for _, s := range res.Subresources {
			subs = append(subs, s.Subresource)
		}
		if want := "attach binding ephemeralcontainers eviction exec log portforward proxy resize status"; strings.Join(subs, " ") != want {
			t.Errorf("aggregated pods subresources = %v, want %s", subs, want)
		}
	}
}

// testEphemeralContainers adds an ephemeral container as kubectl debug
// does (a strategic merge patch of pods/NAME/ephemeralcontainers): the
// Pod answered with it defaulted, the generation bumped, the write
// recorded as subresource ephemeralcontainers, the rest of the body
// ignored; and the real server's refusals.
func testEphemeralContainers(t *testing.T, f *fixture) {
	pods := "/api/v1/namespaces/" + f.ns + "/pods"
	if r := f.send(t, "POST", pods, "application/json",
		`{"metadata":{"name":"debugged"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`); r.code != 201 {
		t.Fatalf("create pod = %d %s", r.code, r.body)
	}
	path := pods + "/debugged/ephemeralcontainers"
	const smp = "application/strategic-merge-patch+json"
	if r := f.send(t, "GET", path, "", ""); r.code != 200 || field(r.object(t), "kind") != "Pod" {
		t.Errorf("GET ephemeralcontainers = %d %s, want the Pod", r.code, r.body)
	}
	r := f.send(t, "PATCH", path, smp, `{"metadata":{"labels":{"ignored":"yes"}},"spec":{"ephemeralContainers":`+
		`[{"name":"debugger","image":"busybox","stdin":true,"tty":true,"targetContainerName":"app"}]}}`)
	if r.code != 200 {
		t.Fatalf("add an ephemeral container = %d %s", r.code, r.body)
	}
	pod := r.object(t)
	ec, _ := json.Marshal(field(pod, "spec", "ephemeralContainers"))
	if want := `[{"image":"busybox","imagePullPolicy":"Always","name":"debugger","resources":{},"stdin":true,` +
		`"targetContainerName":"app","terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","tty":true}]`; string(ec) != want {
		t.Errorf("ephemeral containers = %s, want %s", ec, want)
	}
	if g := field(pod, "metadata", "generation"); g != float64(2) {
		t.Errorf("generation = %v, want 2", g)
	}
	if l := field(pod, "metadata", "labels"); l != nil {
		t.Errorf("labels = %v, want none: the write changes ephemeral containers only", l)
	}
	entries, _ := field(pod, "metadata", "managedFields").([]any)
	if len(entries) != 2 || field(entries[1], "subresource") != "ephemeralcontainers" {
		t.Errorf("managedFields = %v, want the create's entry and one of subresource ephemeralcontainers", entries)
	}
	invalid := func(what, body, msg string) {
		t.Helper()
		expectStatus(t, what, f.send(t, "PATCH", path, smp, body), 422, "Invalid", `Pod "debugged" is invalid: `+msg)
	}
	invalid("an ephemeral container named as a container", `{"spec":{"ephemeralContainers":[{"name":"app","image":"busybox"}]}}`,
		`spec.ephemeralContainers[0].name: Duplicate value: "app"`)
	invalid("an ephemeral container without image", `{"spec":{"ephemeralContainers":[{"name":"noimage"}]}}`,
		`spec.ephemeralContainers[0].image: Required value`)
	invalid("an ephemeral container with what it may not set", `{"spec":{"ephemeralContainers":[{"name":"bad","image":"busybox",`+
		`"targetContainerName":"nosuch","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"1"}},`+
		`"readinessProbe":{"exec":{"command":["true"]}},"volumeMounts":[{"name":"nosuch","mountPath":"/x","subPath":"y"}]}]}}`,
		`[spec.ephemeralContainers[0].volumeMounts[0].name: Not found: "nosuch", spec.ephemeralContainers[0].targetContainerName: Not found: "nosuch", `+
			`spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container, `+
			`spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container, `+
			`spec.ephemeralContainers[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container, `+
			`spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container]`)
	pod["spec"].(map[string]any)["ephemeralContainers"] = []any{}
	body, _ := json.Marshal(pod)
	expectStatus(t, "a PUT that removes an ephemeral container", f.send(t, "PUT", path, "application/json", string(body)),
		422, "Invalid", `Pod "debugged" is invalid: spec.ephemeralContainers: Forbidden: `+
			"existing ephemeral containers \"debugger\" may not be removed\n")
	// The message ends with a diff of the container's internal Go form:
	// 1.33 writes go-cmp's diff of the Go values, which kubetest does not
	// reproduce; the message up to it is checked there.
	const changed = "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"debugger\" may not be changed\n"
	if f.minor(t) <= minorOldest {
		r := f.send(t, "PATCH", path, smp, `{"spec":{"ephemeralContainers":[{"name":"debugger","image":"busybox:2"}]}}`)
		if msg, _ := r.status(t); r.code != 422 || !strings.HasPrefix(msg, `Pod "debugged" is invalid: `+changed) {
			t.Errorf("a change of an ephemeral container = %d %q, want 422 beginning %q", r.code, msg, changed)
		}
	} else {
		invalid("a change of an ephemeral container", `{"spec":{"ephemeralContainers":[{"name":"debugger","image":"busybox:2"}]}}`,
			changed+"@@ -1,6 +1,6 @@\n {\n  \"Name\": \"debugger\",\n- \"Image\": \"busybox\",\n+ \"Image\": \"busybox:2\",\n"+
				"  \"Command\": null,\n  \"Args\": null,\n  \"WorkingDir\": \"\",\n")
	}
	expectStatus(t, "POST of ephemeralcontainers", f.send(t, "POST", path, "application/json", "{}"), 405, "MethodNotAllowed",
		"the server does not allow this method on the requested resource")
}

// testPodResize resizes a pod's container in place (pods/NAME/resize):
// the resources change and nothing else does; a resize that changes the
// pod's QoS class is refused.
func testPodResize(t *testing.T, f *fixture) {
	pods := "/api/v1/namespaces/" + f.ns + "/pods"
	for _, p := range []string{
		`{"metadata":{"name":"burstable"},"spec":{"containers":[{"name":"app","image":"nginx","resources":{"requests":{"cpu":"100m"}}}]}}`,
		`{"metadata":{"name":"besteffort"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`,
	} {
		if r := f.send(t, "POST", pods, "application/json", p); r.code != 201 {
			t.Fatalf("create pod = %d %s", r.code, r.body)
		}
	}
	const smp = "application/strategic-merge-patch+json"
	r := f.send(t, "PATCH", pods+"/burstable/resize", smp,
		`{"spec":{"containers":[{"name":"app","image":"ignored","resources":{"requests":{"cpu":"200m","memory":"1Gi"}}}]}}`)
	if r.code != 200 {
		t.Fatalf("resize = %d %s", r.code, r.body)
	}
	c, _ := json.Marshal(field(r.object(t), "spec", "containers"))
	if want := `[{"image":"nginx","imagePullPolicy":"Always","name":"app","resources":{"requests":{"cpu":"200m","memory":"1Gi"}},` +
		`"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}]`; string(c) != want {
		t.Errorf("resized containers = %s, want %s", c, want)
	}
	expectStatus(t, "a resize that changes the QoS class", f.send(t, "PATCH", pods+"/besteffort/resize", smp,
		`{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"100m"}}}]}}`), 422, "Invalid",
		`Pod "besteffort" is invalid: spec: Invalid value: "BestEffort": Pod QOS Class may not change as a result of resizing`)
}

// testConnectWithoutNode checks what exec, attach, portforward and the
// proxies answer where no node runs the pod and no endpoint serves the
// service: the real server's errors, before any stream is opened.
func testConnectWithoutNode(t *testing.T, f *fixture) {
	ns := "/api/v1/namespaces/" + f.ns
	for _, p := range []string{
		`{"metadata":{"name":"single"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`,
		`{"metadata":{"name":"several"},"spec":{"initContainers":[{"name":"i","image":"busybox"}],"containers":[{"name":"c","image":"nginx"},{"name":"d","image":"nginx"}]}}`,
		`{"metadata":{"name":"bound"},"spec":{"nodeName":"kubeloop-no-such-node","containers":[{"name":"c","image":"nginx"}]}}`,
	} {
		if r := f.send(t, "POST", ns+"/pods", "application/json", p); r.code != 201 {
			t.Fatalf("create pod = %d %s", r.code, r.body)
		}
	}
	if r := f.send(t, "POST", ns+"/services", "application/json", `{"metadata":{"name":"web"},"spec":{"ports":[{"port":80}]}}`); r.code != 201 {
		t.Fatalf("create service = %d %s", r.code, r.body)
	}
	// A service without endpoints: 1.33 looks for its Endpoints object,
	// which no controller of the harness makes; newer minors read
	// EndpointSlices.
	noEndpointsCode, noEndpointsReason, noEndpoints := 503, "ServiceUnavailable", `no endpoints available for service "web"`
	if f.minor(t) <= minorOldest {
		noEndpointsCode, noEndpointsReason, noEndpoints = 404, "NotFound", `services "web" not found`
	}
	for _, tc := range []struct {
		method, path string
		code         int
		reason, msg  string
	}{
		{"POST", "/pods/single/exec?command=ls&stdout=true", 400, "BadRequest", "pod single does not have a host assigned"},
		{"GET", "/pods/single/exec?command=ls", 400, "BadRequest", "pod single does not have a host assigned"},
		{"POST", "/pods/single/attach?stdout=true", 400, "BadRequest", "pod single does not have a host assigned"},
		{"POST", "/pods/single/portforward?ports=80", 400, "BadRequest", "pod single does not have a host assigned"},
		{"POST", "/pods/several/exec?command=ls", 400, "BadRequest", "a container name must be specified for pod several, choose one of: [i c d]"},
		{"POST", "/pods/several/exec?command=ls&container=x", 400, "BadRequest", "container x is not valid for pod several"},
		{"POST", "/pods/several/portforward?ports=80", 400, "BadRequest", "pod several does not have a host assigned"},
		{"POST", "/pods/bound/exec?command=ls", 404, "NotFound", `pods "kubeloop-no-such-node" not found`},
		{"POST", "/pods/nosuch/exec?command=ls", 404, "NotFound", `pods "nosuch" not found`},
		{"PUT", "/pods/single/exec", 405, "MethodNotAllowed", "the server does not allow this method on the requested resource"},
		{"GET", "/pods/single/proxy/healthz", 400, "BadRequest", "address not allowed"},
		{"DELETE", "/pods/single/proxy", 400, "BadRequest", "address not allowed"},
		{"GET", "/services/web/proxy", noEndpointsCode, noEndpointsReason, noEndpoints},
		{"GET", "/services/web:80/proxy/index.html", noEndpointsCode, noEndpointsReason, noEndpoints},
		{"GET", "/pods/single/status/more", 404, "NotFound", "the server could not find the requested resource"},
	} {
		expectStatus(t, tc.method+" "+tc.path, f.send(t, tc.method, ns+tc.path, "", ""), tc.code, tc.reason, tc.msg)
	}
	expectStatus(t, "proxy of a missing node", f.send(t, "GET", "/api/v1/nodes/kubeloop-no-such-node/proxy/healthz", "", ""),
		404, "NotFound", `nodes "kubeloop-no-such-node" not found`)
}

// testScaleReplicationController checks the Scale of a
// ReplicationController (kubectl scale rc): its map selector written as
// a string, get, a merge patch, and the real refusal of negative replicas.
func testScaleReplicationController(t *testing.T, f *fixture) {
	rcs := "/api/v1/namespaces/" + f.ns + "/replicationcontrollers"
	if r := f.send(t, "POST", rcs, "application/json", `{"metadata":{"name":"rc"},"spec":{"selector":{"tier":"web","app":"x"},`+
		`"template":{"metadata":{"labels":{"app":"x","tier":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`); r.code != 201 {
		t.Fatalf("create replication controller = %d %s", r.code, r.body)
	}
	scale := rcs + "/rc/scale"
	sc := f.scale(t, "GET scale", f.send(t, "GET", scale, "", ""))
	expectScale(t, "GET scale", sc, `{"replicas":1}`, `{"replicas":0,"selector":"app=x,tier=web"}`)
	sc = f.scale(t, "PATCH scale", f.send(t, "PATCH", scale, "application/merge-patch+json", `{"spec":{"replicas":3}}`))
	expectScale(t, "PATCH scale", sc, `{"replicas":3}`, `{"replicas":0,"selector":"app=x,tier=web"}`)
	expectStatus(t, "negative replicas", f.send(t, "PUT", scale, "application/json",
		`{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"rc","namespace":"`+f.ns+`"},"spec":{"replicas":-1}}`),
		422, "Invalid", `Scale.autoscaling "rc" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`)
	r := f.send(t, "GET", rcs+"/rc", "", "")
	if n := field(r.object(t), "spec", "replicas"); n != float64(3) {
		t.Errorf("spec.replicas = %v, want 3", n)
	}
}
