// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"net/http"
	"testing"
)

// testDefaults checks the defaults the server gives the built-in kinds a
// controller writes most, as a test reads them back: a Deployment's
// strategy, history and deadline, its pod template's policies and
// container fields; a Pod's own (service links, priority, the tolerations
// the admission adds, its QoS class and the requests copied from its
// limits). The defaults are owned by the writer's Update entry (an Apply
// entry owns its configuration only); a patch of the strategy's type alone
// is refused, since the defaulted rollingUpdate stays.
func testDefaults(t *testing.T, f *fixture) {
	deployments := "/apis/apps/v1/namespaces/" + f.ns + "/deployments"
	pods := "/api/v1/namespaces/" + f.ns + "/pods"
	const template = `"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[
 {"name":"c","image":"nginx","ports":[{"containerPort":80}]},{"name":"d","image":"busybox:1.36"}]}}`
	r := f.send(t, "POST", deployments, "application/json",
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{`+template+`}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create Deployment = %d %s", r.code, r.body)
	}
	deploy := r.object(t)
	expectFields(t, "created Deployment", deploy, map[string]string{
		"spec.replicas":                                                          `1`,
		"spec.strategy":                                                          `{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}}`,
		"spec.revisionHistoryLimit":                                              `10`,
		"spec.progressDeadlineSeconds":                                           `600`,
		"spec.template.spec.dnsPolicy":                                           `"ClusterFirst"`,
		"spec.template.spec.restartPolicy":                                       `"Always"`,
		"spec.template.spec.schedulerName":                                       `"default-scheduler"`,
		"spec.template.spec.securityContext":                                     `{}`,
		"spec.template.spec.terminationGracePeriodSeconds":                       `30`,
		"spec.template.spec.enableServiceLinks":                                  `null`,
		"spec.template.spec.containers.0.imagePullPolicy":                        `"Always"`,
		"spec.template.spec.containers.0.ports.0.protocol":                       `"TCP"`,
		"spec.template.spec.containers.0.resources":                              `{}`,
		"spec.template.spec.containers.1.imagePullPolicy":                        `"IfNotPresent"`,
		"spec.template.spec.containers.1.terminationMessagePath":                 `"/dev/termination-log"`,
		"spec.template.spec.containers.1.terminationMessagePolicy":               `"File"`,
		"metadata.managedFields.0.fieldsV1.f:spec.f:template.f:spec.f:dnsPolicy": `{}`,
	})

	r = f.send(t, "PATCH", deployments+"/d", ctMerge, `{"spec":{"strategy":{"type":"Recreate"}}}`)
	expectStatus(t, "patch of the strategy type alone", r, http.StatusUnprocessableEntity, "Invalid",
		"Deployment.apps \"d\" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'")
	r = f.send(t, "PATCH", deployments+"/d", ctMerge, `{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null},"revisionHistoryLimit":null}}`)
	if r.code != http.StatusOK {
		t.Fatalf("patch to Recreate = %d %s", r.code, r.body)
	}
	expectFields(t, "patched Deployment", r.object(t), map[string]string{
		"spec.strategy":             `{"type":"Recreate"}`,
		"spec.revisionHistoryLimit": `10`,
	})

	applied := f.mustApply(t, deployments+"/applied", "scenario",
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"applied"},"spec":{`+template+`}}`, false)
	expectFields(t, "applied Deployment", applied, map[string]string{
		"spec.strategy.type":                                  `"RollingUpdate"`,
		"spec.template.spec.containers.0.imagePullPolicy":     `"Always"`,
		"metadata.managedFields.0.operation":                  `"Apply"`,
		"metadata.managedFields.0.fieldsV1.f:spec.f:strategy": `null`,
		"metadata.managedFields.1":                            `null`,
	})

	r = f.send(t, "POST", pods, "application/json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[
 {"name":"c","image":"busybox:1.36","resources":{"limits":{"cpu":"100m","memory":"64Mi"}}}]}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create Pod = %d %s", r.code, r.body)
	}
	expectFields(t, "created Pod", r.object(t), map[string]string{
		"spec.enableServiceLinks":              `true`,
		"spec.priority":                        `0`,
		"spec.preemptionPolicy":                `"PreemptLowerPriority"`,
		"spec.containers.0.resources.requests": `{"cpu":"100m","memory":"64Mi"}`,
		"spec.containers.0.imagePullPolicy":    `"IfNotPresent"`,
		"spec.tolerations": `[{"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300},
 {"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":300}]`,
		"status": `{"phase":"Pending","qosClass":"Guaranteed"}`,
		// Admission's fields are owned by nobody.
		"metadata.managedFields.0.fieldsV1.f:spec.f:tolerations":        `null`,
		"metadata.managedFields.0.fieldsV1.f:spec.f:enableServiceLinks": `{}`,
	})
}

// expectFields compares the values at dotted paths of o with JSON texts.
func expectFields(t *testing.T, what string, o map[string]any, want map[string]string) {
	t.Helper()
	for path, text := range want {
		var w any
		if err := json.Unmarshal([]byte(text), &w); err != nil {
			t.Fatalf("%s: bad want %s: %v", path, text, err)
		}
		got := fieldAt(o, path)
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(w)
		if string(gb) != string(wb) {
			t.Errorf("%s: %s = %s, want %s", what, path, gb, wb)
		}
	}
}
