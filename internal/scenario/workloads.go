// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// testWorkloadKinds checks the kinds served for kubectl beyond
// Deployments (apply --prune lists them all, rollout history reads
// ReplicaSets): a ReplicaSet's scale subresource; a batch/v1 Job deleted
// without a propagation policy orphans its dependents (the orphan
// finalizer, which the garbage collector then removes); every request of
// v1 Endpoints is answered with the deprecation warning.
func testWorkloadKinds(t *testing.T, f *fixture) {
	rs := "/apis/apps/v1/namespaces/" + f.ns + "/replicasets"
	r := f.send(t, "POST", rs, "application/json", `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"r"},"spec":{
 "selector":{"matchLabels":{"app":"r"}},"template":{"metadata":{"labels":{"app":"r"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create ReplicaSet = %d %s", r.code, r.body)
	}
	r = f.send(t, "GET", rs+"/r/scale", "", "")
	if r.code != http.StatusOK {
		t.Fatalf("get ReplicaSet scale = %d %s", r.code, r.body)
	}
	expectFields(t, "ReplicaSet scale", r.object(t), map[string]string{
		"kind": `"Scale"`, "apiVersion": `"autoscaling/v1"`, "spec.replicas": `1`, "status.selector": `"app=r"`,
	})

	jobs := "/apis/batch/v1/namespaces/" + f.ns + "/jobs"
	r = f.send(t, "POST", jobs, "application/json", `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{
 "template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox:1.36"}]}}}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create Job = %d %s", r.code, r.body)
	}
	r = f.send(t, "DELETE", jobs+"/j", "", "")
	if r.code != http.StatusOK {
		t.Fatalf("delete Job = %d %s", r.code, r.body)
	}
	expectFields(t, "deleted Job", r.object(t), map[string]string{"kind": `"Job"`, "metadata.finalizers": `["orphan"]`})
	if f.env.Controllers {
		f.settled(t, "Job released by the collector", func() error {
			if r := f.send(t, "GET", jobs+"/j", "", ""); r.code != http.StatusNotFound {
				return fmt.Errorf("Job = %d %s", r.code, r.body)
			}
			return nil
		})
	}

	eps := "/api/v1/namespaces/" + f.ns + "/endpoints"
	r = f.send(t, "GET", eps, "", "")
	const deprecated = "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"
	if r.code != http.StatusOK || !slices.Contains(r.warnings(), deprecated) {
		t.Errorf("list Endpoints = %d, warnings %q; want 200 and %q", r.code, r.warnings(), deprecated)
	}
}
