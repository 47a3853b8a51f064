// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
)

// TestGenericKindsRoundTrip creates, reads, lists, watches, updates,
// patches, applies and deletes one object of each stored-only built-in
// kind (internal/kinds), and checks the generation and status a create stores
// and that the schema is enforced (an unknown field is refused under
// fieldValidation=Strict).
func TestGenericKindsRoundTrip(t *testing.T) {
	tests := []struct {
		gv, plural string
		namespaced bool
		spec       string // the object's fields besides apiVersion, kind and metadata
		generation bool
		status     string // the status a create stores, "" for none
	}{
		{"v1", "nodes", false, `"spec":{"podCIDR":"10.1.0.0/24"}`, false,
			`{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":{"architecture":"","bootID":"","containerRuntimeVersion":"","kernelVersion":"","kubeProxyVersion":"","kubeletVersion":"","machineID":"","operatingSystem":"","osImage":"","systemUUID":""}}`},
		{"v1", "podtemplates", true, `"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}`, true, ""},
		{"admissionregistration.k8s.io/v1", "validatingwebhookconfigurations", false, `"webhooks":[]`, true, ""},
		{"admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations", false, `"webhooks":[]`, true, ""},
		{"admissionregistration.k8s.io/v1", "validatingadmissionpolicies", false, `"spec":{"validations":[{"expression":"true"}]}`, true, `{}`},
		{"admissionregistration.k8s.io/v1", "validatingadmissionpolicybindings", false, `"spec":{"policyName":"p"}`, true, ""},
		{"admissionregistration.k8s.io/v1", "mutatingadmissionpolicies", false, `"spec":{}`, true, ""},
		{"admissionregistration.k8s.io/v1", "mutatingadmissionpolicybindings", false, `"spec":{"policyName":"p"}`, true, ""},
		{"apiregistration.k8s.io/v1", "apiservices", false, `"spec":{"groupPriorityMinimum":100,"versionPriority":10}`, false, `{}`},
		{"autoscaling/v2", "horizontalpodautoscalers", true, `"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":3}`, false, `{"currentMetrics":null,"desiredReplicas":0}`},
		{"autoscaling/v1", "horizontalpodautoscalers", true, `"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":3,"targetCPUUtilizationPercentage":50}`, false, `{"currentReplicas":0,"desiredReplicas":0}`},
		{"certificates.k8s.io/v1", "certificatesigningrequests", false, `"spec":{"request":"","signerName":"example.com/s"}`, false, `{}`},
		{"discovery.k8s.io/v1", "endpointslices", true, `"addressType":"IPv4","endpoints":[]`, true, ""},
		{"flowcontrol.apiserver.k8s.io/v1", "flowschemas", false, `"spec":{"priorityLevelConfiguration":{"name":"p"}}`, true, `{}`},
		{"flowcontrol.apiserver.k8s.io/v1", "prioritylevelconfigurations", false, `"spec":{"type":"Exempt"}`, true, `{}`},
		{"networking.k8s.io/v1", "ingressclasses", false, `"spec":{"controller":"example.com/c"}`, true, ""},
		{"networking.k8s.io/v1", "ipaddresses", false, `"spec":{"parentRef":{"resource":"services","name":"s"}}`, false, ""},
		{"networking.k8s.io/v1", "networkpolicies", true, `"spec":{"podSelector":{}}`, true, ""},
		{"networking.k8s.io/v1", "servicecidrs", false, `"spec":{"cidrs":["10.9.0.0/24"]}`, false, `{}`},
		{"node.k8s.io/v1", "runtimeclasses", false, `"handler":"runc"`, false, ""},
		{"policy/v1", "poddisruptionbudgets", true, `"spec":{"minAvailable":1}`, true, `{"currentHealthy":0,"desiredHealthy":0,"disruptionsAllowed":0,"expectedPods":0}`},
		{"rbac.authorization.k8s.io/v1", "clusterroles", false, `"rules":[]`, false, ""},
		{"rbac.authorization.k8s.io/v1", "clusterrolebindings", false, `"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"r"}`, false, ""},
		{"rbac.authorization.k8s.io/v1", "roles", true, `"rules":[]`, false, ""},
		{"rbac.authorization.k8s.io/v1", "rolebindings", true, `"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"}`, false, ""},
		{"resource.k8s.io/v1", "deviceclasses", false, `"spec":{}`, true, ""},
		{"resource.k8s.io/v1", "resourceclaims", true, `"spec":{}`, false, `{}`},
		{"resource.k8s.io/v1", "resourceclaimtemplates", true, `"spec":{"spec":{}}`, false, ""},
		{"resource.k8s.io/v1", "resourceslices", false, `"spec":{"driver":"d.example.com","pool":{"name":"p","generation":1,"resourceSliceCount":1},"allNodes":true}`, true, ""},
		{"scheduling.k8s.io/v1", "priorityclasses", false, `"value":100`, true, ""},
		{"storage.k8s.io/v1", "csidrivers", false, `"spec":{}`, false, ""},
		{"storage.k8s.io/v1", "csinodes", false, `"spec":{"drivers":[]}`, false, `{}`},
		{"certificates.k8s.io/v1", "clustertrustbundles", false, `"spec":{"trustBundle":"x"}`, false, ""},
		{"resource.k8s.io/v1", "devicetaintrules", false, `"spec":{"taint":{"key":"k","effect":"NoSchedule"}}`, true, `{}`},
		{"storagemigration.k8s.io/v1", "storageversionmigrations", false, `"spec":{"resource":{"group":"","resource":"configmaps"}}`, false, `{}`},
		{"storage.k8s.io/v1", "csistoragecapacities", true, `"storageClassName":"sc"`, false, ""},
		{"storage.k8s.io/v1", "storageclasses", false, `"provisioner":"example.com/p"`, false, ""},
		{"storage.k8s.io/v1", "volumeattachments", false, `"spec":{"attacher":"a","nodeName":"n","source":{"persistentVolumeName":"pv"}}`, false, `{"attached":false}`},
		{"storage.k8s.io/v1", "volumeattributesclasses", false, `"driverName":"d.example.com"`, false, ""},
	}
	_, c := newTestServer(t, Options{})
	for _, tc := range tests {
		t.Run(tc.gv+"/"+tc.plural, func(t *testing.T) {
			base := "/apis/" + tc.gv
			if tc.gv == "v1" {
				base = "/api/v1"
			}
			if tc.namespaced {
				base += "/namespaces/default"
			}
			col := base + "/" + tc.plural
			item := col + "/x"
			res := c.reg(t, tc.gv, tc.plural)
			head := `{"apiVersion":"` + tc.gv + `","kind":"` + res.Kind + `","metadata":{"name":"x"},` + tc.spec

			if r := c.do("POST", col+"?fieldValidation=Strict", head+`,"bogus":1}`); r.code != 400 || !strings.Contains(string(r.body), `unknown field \"bogus\"`) {
				t.Errorf("POST with an unknown field = %d %s, want 400 unknown field", r.code, r.body)
			}
			w := openWatch(t, c, col+"?watch=1")
			created := c.mustDo(201, "POST", col, head+`,"status":{}}`)
			if ev := w.next(); ev["type"] != "ADDED" {
				t.Errorf("watch event = %v, want ADDED", ev["type"])
			}
			if g, ok := field(created, "metadata.generation").(float64); tc.generation != ok || (ok && g != 1) {
				t.Errorf("created generation = %v, want it set to 1: %v", field(created, "metadata.generation"), tc.generation)
			}
			if got := string(mustJSON(created["status"])); (tc.status == "" && created["status"] != nil) || (tc.status != "" && got != tc.status) {
				t.Errorf("created status = %s, want %q", got, tc.status)
			}
			got := c.mustDo(200, "GET", item, "")
			if got["kind"] != res.Kind || got["apiVersion"] != tc.gv {
				t.Errorf("GET = %v %v, want %s %s", got["apiVersion"], got["kind"], tc.gv, res.Kind)
			}
			list := c.mustDo(200, "GET", col, "")
			if items, _ := list["items"].([]any); len(items) != 1 || list["kind"] != res.Kind+"List" {
				t.Errorf("list = %s with %d items, want %sList with 1", list["kind"], len(items), res.Kind)
			}
			got["metadata"].(map[string]any)["labels"] = map[string]any{"a": "1"}
			c.mustDo(200, "PUT", item, string(mustJSON(got)))
			c.mustDo(200, "PATCH", item, `{"metadata":{"labels":{"b":"2"}}}`, "Content-Type", "application/merge-patch+json")
			applied := c.mustDo(200, "PATCH", item+"?fieldManager=t", `{"apiVersion":"`+tc.gv+`","kind":"`+res.Kind+`","metadata":{"name":"x","labels":{"c":"3"}}}`,
				"Content-Type", "application/apply-patch+yaml")
			if l := field(applied, "metadata.labels"); len(l.(map[string]any)) != 3 {
				t.Errorf("labels after update, patch and apply = %v, want a, b and c", l)
			}
			for _, want := range []string{"MODIFIED", "MODIFIED", "MODIFIED"} {
				if ev := w.next(); ev["type"] != want {
					t.Errorf("watch event = %v, want %s", ev["type"], want)
				}
			}
			c.mustDo(200, "DELETE", item, "")
			c.mustDo(404, "GET", item, "")
		})
	}
}

// reg returns the served resource of gv and plural, failing without one.
func (c *client) reg(t *testing.T, gv, plural string) *resource {
	t.Helper()
	group, version := kinds.SplitGV(gv)
	if !strings.Contains(gv, "/") {
		group = ""
	}
	r := builtinByName(group, version, plural)
	if r == nil {
		t.Fatalf("%s %s is not served", gv, plural)
	}
	return r
}

func builtinByName(group, version, plural string) *resource {
	for _, r := range builtins() {
		if r.Group == group && r.Version == version && r.Plural == plural {
			return r
		}
	}
	return nil
}

// TestHPAVersions reads autoscalers created at one version at the other:
// a v1 CPU target is a v2 Resource metric, a v2 autoscaler without
// metrics gets the default target of 80%, and both get minReplicas 1.
func TestHPAVersions(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const v1, v2 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
	ref := `"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":3`
	c.mustDo(201, "POST", v1, `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"one"},"spec":{`+ref+`,"targetCPUUtilizationPercentage":50}}`)
	c.mustDo(201, "POST", v2, `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"two"},"spec":{`+ref+`}}`)
	for _, tc := range []struct{ path, field, want string }{
		{v2 + "/one", "spec", `{"maxReplicas":3,"metrics":[{"resource":{"name":"cpu","target":{"averageUtilization":50,"type":"Utilization"}},"type":"Resource"}],"minReplicas":1,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}}`},
		{v2 + "/one", "status", `{"currentMetrics":null,"desiredReplicas":0}`},
		{v1 + "/one", "spec", `{"maxReplicas":3,"minReplicas":1,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"targetCPUUtilizationPercentage":50}`},
		{v1 + "/two", "spec", `{"maxReplicas":3,"minReplicas":1,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"targetCPUUtilizationPercentage":80}`},
		{v1 + "/two", "apiVersion", `"autoscaling/v1"`},
	} {
		got := c.mustDo(200, "GET", tc.path, "")
		if s := string(mustJSON(got[tc.field])); s != tc.want {
			t.Errorf("GET %s: %s = %s, want %s", tc.path, tc.field, s, tc.want)
		}
	}
}
