// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// The defaulted objects of testdata/defaults.json were captured from
// kube-apiserver 1.37.2 (with its default admission plugins but
// ServiceAccount) by TestCaptureDefaults; TestDefaultsAsCaptured replays
// the same writes on kubetest and compares what it stores. To regenerate:
//
//	testdata/kube-apiserver/harness.sh run -- env KUBELOOP_DEFAULTS_CAPTURE=1 \
//	    go test -count=1 -run TestCaptureDefaults ./kube/kubetest/

// defaultsCase is a few writes to one object; the capture is the object
// read back after the last, with the volatile fields masked.
type defaultsCase struct {
	name  string
	path  string // the collection, "{ns}" for the namespace
	steps []defaultsStep
}

// defaultsStep is one write: POST to the collection, or PUT or PATCH of
// the object (a PUT's body gets the current resourceVersion).
type defaultsStep struct {
	method, contentType, body string
}

func post(body string) defaultsStep { return defaultsStep{"POST", "application/json", body} }

const deploymentMinimal = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"NAME"},"spec":{
 "selector":{"matchLabels":{"app":"a"}},
 "template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}]}]}}}}`

func named(body, name string) string { return strings.Replace(body, "NAME", name, 1) }

var defaultsCases = []defaultsCase{
	{"deployment-minimal", "/apis/apps/v1/namespaces/{ns}/deployments", []defaultsStep{
		post(named(deploymentMinimal, "minimal"))}},
	{"deployment-set", "/apis/apps/v1/namespaces/{ns}/deployments", []defaultsStep{
		post(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"set"},"spec":{
 "replicas":3,"revisionHistoryLimit":2,"progressDeadlineSeconds":60,
 "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}},
 "selector":{"matchLabels":{"app":"a"}},
 "template":{"metadata":{"labels":{"app":"a"}},"spec":{
  "restartPolicy":"Always","dnsPolicy":"Default","terminationGracePeriodSeconds":5,"schedulerName":"mine",
  "securityContext":{"runAsNonRoot":true},
  "containers":[
   {"name":"tagged","image":"nginx:1.27","ports":[{"containerPort":53,"protocol":"UDP"},{"containerPort":8080,"name":"http"}]},
   {"name":"latest","image":"registry.example:5000/team/app:latest","terminationMessagePolicy":"FallbackToLogsOnError"},
   {"name":"digest","image":"app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
   {"name":"port-no-tag","image":"registry.example:5000/app","imagePullPolicy":"Never"}]}}}}`)}},
	{"deployment-recreate", "/apis/apps/v1/namespaces/{ns}/deployments", []defaultsStep{
		post(strings.Replace(named(deploymentMinimal, "recreate"), `"selector"`, `"strategy":{"type":"Recreate"},"selector"`, 1))}},
	{"deployment-merge-patch", "/apis/apps/v1/namespaces/{ns}/deployments", []defaultsStep{
		post(named(deploymentMinimal, "merge")),
		{"PATCH", ctMerge, `{"spec":{"revisionHistoryLimit":null,"strategy":{"type":"Recreate","rollingUpdate":null},
 "template":{"spec":{"dnsPolicy":null,"securityContext":null}}}}`}}},
	{"deployment-strategic-patch", "/apis/apps/v1/namespaces/{ns}/deployments", []defaultsStep{
		post(named(deploymentMinimal, "strategic")),
		{"PATCH", ctSMP, `{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:1.27"},{"name":"d","image":"busybox:1.36"}]}}}}`}}},
	{"deployment-put", "/apis/apps/v1/namespaces/{ns}/deployments", []defaultsStep{
		post(named(deploymentMinimal, "put")),
		{"PUT", "application/json", named(deploymentMinimal, "put")}}},
	{"deployment-apply", "/apis/apps/v1/namespaces/{ns}/deployments", []defaultsStep{
		{"PATCH", ctApply, named(deploymentMinimal, "apply")},
		{"PATCH", ctApply, strings.Replace(named(deploymentMinimal, "apply"), `"nginx"`, `"nginx:1.27"`, 1)}}},
	{"pod-minimal", "/api/v1/namespaces/{ns}/pods", []defaultsStep{
		post(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"minimal"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`)}},
	{"pod-full", "/api/v1/namespaces/{ns}/pods", []defaultsStep{
		post(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"full"},"spec":{
 "initContainers":[{"name":"init","image":"busybox:1.36","resources":{"limits":{"cpu":"100m"}}}],
 "containers":[{"name":"c","image":"nginx:1.27",
  "ports":[{"containerPort":80}],
  "env":[{"name":"NODE","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}}],
  "resources":{"limits":{"cpu":"500m","memory":"64Mi"},"requests":{"cpu":"250m"}},
  "livenessProbe":{"httpGet":{"port":8080}},
  "readinessProbe":{"tcpSocket":{"port":80},"periodSeconds":5},
  "startupProbe":{"exec":{"command":["true"]},"failureThreshold":30},
  "lifecycle":{"preStop":{"httpGet":{"path":"/stop","port":80}}},
  "volumeMounts":[{"name":"scratch","mountPath":"/s"}]}],
 "volumes":[{"name":"scratch"},{"name":"cm","configMap":{"name":"x"}},{"name":"sec","secret":{"secretName":"x"}},
  {"name":"down","downwardAPI":{"items":[{"path":"labels","fieldRef":{"fieldPath":"metadata.labels"}}]}},
  {"name":"host","hostPath":{"path":"/tmp"}},
  {"name":"proj","projected":{"sources":[{"configMap":{"name":"x"}},{"downwardAPI":{"items":[{"path":"n","fieldRef":{"fieldPath":"metadata.name"}}]}}]}}]}}`)}},
	{"pod-guaranteed", "/api/v1/namespaces/{ns}/pods", []defaultsStep{
		post(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"guaranteed"},"spec":{"restartPolicy":"Never","enableServiceLinks":false,
 "containers":[{"name":"c","image":"busybox:1.36","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]}}`)}},
	{"configmap-empty", "/api/v1/namespaces/{ns}/configmaps", []defaultsStep{
		post(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"empty"}}`)}},
	{"secret-minimal", "/api/v1/namespaces/{ns}/secrets", []defaultsStep{
		post(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"minimal"},"stringData":{"k":"v"}}`)}},
	{"serviceaccount-minimal", "/api/v1/namespaces/{ns}/serviceaccounts", []defaultsStep{
		post(`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"minimal"}}`)}},
	{"replicaset-minimal", "/apis/apps/v1/namespaces/{ns}/replicasets", []defaultsStep{
		post(strings.Replace(named(deploymentMinimal, "minimal"), `"Deployment"`, `"ReplicaSet"`, 1))}},
	{"statefulset-minimal", "/apis/apps/v1/namespaces/{ns}/statefulsets", []defaultsStep{
		post(`{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"minimal"},"spec":{"serviceName":"s",
 "selector":{"matchLabels":{"app":"a"}},
 "template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}},
 "volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}}`)}},
	{"daemonset-minimal", "/apis/apps/v1/namespaces/{ns}/daemonsets", []defaultsStep{
		post(strings.Replace(strings.Replace(named(deploymentMinimal, "minimal"), `"Deployment"`, `"DaemonSet"`, 1), `"ports":[{"containerPort":80}]`, `"ports":[{"containerPort":80,"hostPort":80}]`, 1))}},
	{"controllerrevision-minimal", "/apis/apps/v1/namespaces/{ns}/controllerrevisions", []defaultsStep{
		post(`{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"minimal"},"revision":1,"data":{"spec":{"template":{"$patch":"replace"}}}}`)}},
	{"job-minimal", "/apis/batch/v1/namespaces/{ns}/jobs", []defaultsStep{
		post(`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"minimal"},"spec":{
 "template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox:1.36"}]}}}}`)}},
	{"cronjob-minimal", "/apis/batch/v1/namespaces/{ns}/cronjobs", []defaultsStep{
		post(`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"minimal"},"spec":{"schedule":"*/5 * * * *",
 "jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"c","image":"busybox"}]}}}}}}`)}},
	{"replicationcontroller-minimal", "/api/v1/namespaces/{ns}/replicationcontrollers", []defaultsStep{
		post(`{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"minimal"},"spec":{
 "template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`)}},
	{"endpoints-minimal", "/api/v1/namespaces/{ns}/endpoints", []defaultsStep{
		post(`{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"minimal"},"subsets":[{"addresses":[{"ip":"10.1.2.3"}],"ports":[{"port":80}]}]}`)}},
	{"persistentvolumeclaim-minimal", "/api/v1/namespaces/{ns}/persistentvolumeclaims", []defaultsStep{
		post(`{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"minimal"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`)}},
	{"ingress-minimal", "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses", []defaultsStep{
		post(`{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"minimal"},"spec":{"rules":[{"host":"a.example","http":{"paths":[
 {"path":"/","pathType":"Prefix","backend":{"service":{"name":"s","port":{"number":80}}}}]}}]}}`)}},
	{"service-minimal", "/api/v1/namespaces/{ns}/services", []defaultsStep{
		post(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"minimal"},"spec":{"selector":{"app":"a"},"ports":[{"port":80}]}}`)}},
}

// defaultsDoer sends one request to a server.
type defaultsDoer func(method, path, contentType, body string) (int, []byte)

// runDefaultsCase runs c's writes in namespace ns and returns the object
// read back, masked.
func runDefaultsCase(t *testing.T, do defaultsDoer, ns string, c defaultsCase) any {
	t.Helper()
	coll := strings.ReplaceAll(c.path, "{ns}", ns)
	var name string
	for i, st := range c.steps {
		var o map[string]any
		if err := json.Unmarshal([]byte(st.body), &o); err != nil {
			t.Fatalf("%s step %d: %v", c.name, i, err)
		}
		if name == "" {
			name, _ = o["metadata"].(map[string]any)["name"].(string)
		}
		path, body := coll+"/"+name, st.body
		switch st.method {
		case "POST":
			path = coll
		case "PUT":
			code, cur := do("GET", path, "", "")
			var live map[string]any
			if code != http.StatusOK || json.Unmarshal(cur, &live) != nil {
				t.Fatalf("%s step %d: GET %s = %d %s", c.name, i, path, code, cur)
			}
			o["metadata"].(map[string]any)["resourceVersion"] = live["metadata"].(map[string]any)["resourceVersion"]
			b, _ := json.Marshal(o)
			body = string(b)
		case "PATCH":
			if st.contentType == ctApply {
				path += "?fieldManager=capture"
			}
		}
		if code, out := do(st.method, path, st.contentType, body); code/100 != 2 {
			t.Fatalf("%s step %d: %s %s = %d %s", c.name, i, st.method, path, code, out)
		}
	}
	code, out := do("GET", coll+"/"+name, "", "")
	if code != http.StatusOK {
		t.Fatalf("%s: GET = %d %s", c.name, code, out)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	maskDefaulted(got)
	return normalize(got)
}

// maskDefaulted replaces what differs between servers and runs beyond
// normalize's fields: the namespace, and a Service's cluster IP (the real
// allocator picks at random).
func maskDefaulted(o map[string]any) {
	if meta, ok := o["metadata"].(map[string]any); ok {
		meta["namespace"] = "NS"
		if uid, _ := meta["uid"].(string); uid != "" {
			maskString(o, uid, "UID") // a Job's selector and labels
		}
	}
	if spec, ok := o["spec"].(map[string]any); ok && o["kind"] == "Service" {
		spec["clusterIP"] = "X"
		spec["clusterIPs"] = []any{"X"}
	}
}

// maskString replaces the string values old held in v by new.
func maskString(v any, old, new string) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if x == old {
				t[k] = new
			} else {
				maskString(x, old, new)
			}
		}
	case []any:
		for i, x := range t {
			if x == old {
				t[i] = new
			} else {
				maskString(x, old, new)
			}
		}
	}
}

const defaultsCaptureFile = "testdata/defaults.json"

// TestDefaultsAsCaptured checks that kubetest stores what kube-apiserver
// stored for the same writes: the defaults of the kind's decoding, of the
// default admission plugins and of the create strategy, with the
// managedFields they imply.
func TestDefaultsAsCaptured(t *testing.T) {
	raw, err := os.ReadFile(defaultsCaptureFile)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	_, c := newTestServer(t, Options{})
	c.mustDo(http.StatusCreated, "POST", "/api/v1/namespaces", `{"metadata":{"name":"defaults"}}`)
	do := func(method, path, contentType, body string) (int, []byte) {
		r := c.do(method, path, body, "Content-Type", contentType, "User-Agent", "capture/1.0")
		return r.code, r.body
	}
	for _, dc := range defaultsCases {
		t.Run(dc.name, func(t *testing.T) {
			w, ok := want[dc.name]
			if !ok {
				t.Fatalf("no capture of %s in %s: regenerate it", dc.name, defaultsCaptureFile)
			}
			got := runDefaultsCase(t, do, "defaults", dc)
			if !reflect.DeepEqual(got, w) {
				gb, _ := json.MarshalIndent(got, "", " ")
				wb, _ := json.MarshalIndent(w, "", " ")
				t.Errorf("stored object differs from the capture\ngot:  %s\nwant: %s", gb, wb)
			}
		})
	}
}

// TestCaptureDefaults regenerates testdata/defaults.json from a running
// kube-apiserver (see the comment at the top of this file).
func TestCaptureDefaults(t *testing.T) {
	if os.Getenv("KUBELOOP_DEFAULTS_CAPTURE") != "1" {
		t.Skip("set KUBELOOP_DEFAULTS_CAPTURE=1 and KUBELOOP_KUBECONFIG to regenerate " + defaultsCaptureFile)
	}
	cfg, err := kube.LoadConfig(kube.LoadOptions{Path: os.Getenv("KUBELOOP_KUBECONFIG")})
	if err != nil {
		t.Fatal(err)
	}
	hc, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimSuffix(cfg.Host, "/")
	do := func(method, path, contentType, body string) (int, []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, method, host+path, strings.NewReader(body))
		req.Header.Set("User-Agent", "capture/1.0")
		if body != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, b
	}
	var suffix [4]byte
	rand.Read(suffix[:])
	ns := "defaults-" + hex.EncodeToString(suffix[:])
	if code, out := do("POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"`+ns+`"}}`); code != http.StatusCreated {
		t.Fatalf("create namespace = %d %s", code, out)
	}
	defer do("DELETE", "/api/v1/namespaces/"+ns, "", "")
	out := map[string]any{}
	for _, dc := range defaultsCases {
		out[dc.name] = runDefaultsCase(t, do, ns, dc)
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(defaultsCaptureFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDeploymentRecreateKeepsNoRollingUpdate: once the strategy is
// defaulted, a patch of its type alone leaves the defaulted rollingUpdate
// beside Recreate, which kube-apiserver 1.36 refuses with this 422.
func TestDeploymentRecreateKeepsNoRollingUpdate(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const deploy = "/apis/apps/v1/namespaces/default/deployments"
	c.mustDo(http.StatusCreated, "POST", deploy, named(deploymentMinimal, "d"))
	r := c.do("PATCH", deploy+"/d", `{"spec":{"strategy":{"type":"Recreate"}}}`, "Content-Type", ctMerge)
	want := "Deployment.apps \"d\" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"
	if m := r.json(t); r.code != http.StatusUnprocessableEntity || m["message"] != want {
		t.Errorf("PATCH strategy type Recreate = %d %v, want 422 %q", r.code, m["message"], want)
	}
	c.mustDo(http.StatusOK, "PATCH", deploy+"/d", `{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}`, "Content-Type", ctMerge)
}
