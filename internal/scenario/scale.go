// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// scaleView is what the scenarios read of an autoscaling/v1 Scale.
type scaleView struct {
	Kind, APIVersion string
	Metadata         struct {
		Name, Namespace, UID, ResourceVersion string
	}
	Spec   map[string]any
	Status map[string]any
}

func (f *fixture) scale(t *testing.T, what string, r rawResponse) scaleView {
	t.Helper()
	var sc scaleView
	if err := json.Unmarshal(r.body, &sc); err != nil || r.code != 200 {
		t.Fatalf("%s = %d %s, want 200 with a Scale", what, r.code, r.body)
	}
	if sc.Kind != "Scale" || sc.APIVersion != "autoscaling/v1" {
		t.Errorf("%s answered %s %s, want autoscaling/v1 Scale", what, sc.APIVersion, sc.Kind)
	}
	return sc
}

// expectScale checks a Scale's replicas and selector, as JSON.
func expectScale(t *testing.T, what string, sc scaleView, spec, status string) {
	t.Helper()
	gs, _ := json.Marshal(sc.Spec)
	gt, _ := json.Marshal(sc.Status)
	if string(gs) != spec || string(gt) != status {
		t.Errorf("%s: spec %s status %s, want spec %s status %s", what, gs, gt, spec, status)
	}
}

// testScale checks the scale subresource of Deployments (what `kubectl
// scale` reads and writes): the Scale read from the object, get, update
// and patches that change only spec.replicas (bumping the generation,
// recorded in managedFields as subresource "scale" without a time), and
// the real server's errors.
func testScale(t *testing.T, f *fixture) {
	deploys := "/apis/apps/v1/namespaces/" + f.ns + "/deployments"
	r := f.send(t, "POST", deploys, "application/json", `{"apiVersion":"apps/v1","kind":"Deployment",`+
		`"metadata":{"name":"web","labels":{"app":"web"}},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},`+
		`"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"nginx"}]}}}}`)
	if r.code != 201 {
		t.Fatalf("create deployment = %d %s", r.code, r.body)
	}
	var d struct{ Metadata struct{ UID string } }
	json.Unmarshal(r.body, &d)
	scale := deploys + "/web/scale"
	sc := f.scale(t, "GET scale", f.send(t, "GET", scale, "", ""))
	expectScale(t, "GET scale", sc, `{"replicas":1}`, `{"replicas":0,"selector":"app=web"}`)
	if sc.Metadata.Name != "web" || sc.Metadata.Namespace != f.ns || sc.Metadata.UID != d.Metadata.UID {
		t.Errorf("Scale metadata %+v, want the deployment's name, namespace and uid %s", sc.Metadata, d.Metadata.UID)
	}

	put := func(name, rv string, replicas int) rawResponse {
		meta := `"name":"` + name + `","namespace":"` + f.ns + `"`
		if rv != "" {
			meta += `,"resourceVersion":"` + rv + `"`
		}
		return f.send(t, "PUT", scale+"?fieldManager=scaler", "application/json",
			fmt.Sprintf(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{%s},"spec":{"replicas":%d}}`, meta, replicas))
	}
	after := f.scale(t, "PUT scale", put("web", sc.Metadata.ResourceVersion, 3))
	expectScale(t, "PUT scale", after, `{"replicas":3}`, `{"replicas":0,"selector":"app=web"}`)
	if after.Metadata.ResourceVersion == sc.Metadata.ResourceVersion {
		t.Errorf("PUT scale kept resourceVersion %s", after.Metadata.ResourceVersion)
	}
	expectScale(t, "merge patch", f.scale(t, "merge patch", f.send(t, "PATCH", scale+"?fieldManager=scaler",
		"application/merge-patch+json", `{"spec":{"replicas":4}}`)), `{"replicas":4}`, `{"replicas":0,"selector":"app=web"}`)
	expectScale(t, "strategic patch", f.scale(t, "strategic patch", f.send(t, "PATCH", scale+"?fieldManager=scaler",
		"application/strategic-merge-patch+json", `{"spec":{"replicas":5}}`)), `{"replicas":5}`, `{"replicas":0,"selector":"app=web"}`)

	expectStatus(t, "PUT scale at a stale resourceVersion", put("web", "1", 3), 409, "Conflict",
		`Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again`)
	expectStatus(t, "PUT scale -1", put("web", "", -1), 422, "Invalid",
		`Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`)
	expectStatus(t, "PUT scale of another name", put("other", "", 2), 400, "BadRequest",
		"the name of the object (other) does not match the name on the URL (web)")
	expectStatus(t, "GET scale of a missing deployment", f.send(t, "GET", deploys+"/nosuch/scale", "", ""), 404, "NotFound",
		`deployments.apps "nosuch" not found`)

	var got struct {
		Metadata struct {
			Generation    int
			ManagedFields []map[string]any
		}
		Spec struct{ Replicas int }
	}
	json.Unmarshal(f.send(t, "GET", deploys+"/web", "", "").body, &got)
	if got.Spec.Replicas != 5 || got.Metadata.Generation != 4 {
		t.Errorf("deployment after scaling: replicas %d generation %d, want 5 and 4", got.Spec.Replicas, got.Metadata.Generation)
	}
	var entries []string
	for _, e := range got.Metadata.ManagedFields {
		if e["subresource"] == "scale" {
			fields, _ := json.Marshal(e["fieldsV1"])
			_, hasTime := e["time"]
			entries = append(entries, fmt.Sprintf("%v %v %s time:%v", e["manager"], e["operation"], fields, hasTime))
		}
	}
	if want := `scaler Update {"f:spec":{"f:replicas":{}}} time:false`; strings.Join(entries, "; ") != want {
		t.Errorf("managedFields of scale: %q, want %q", entries, want)
	}
}

// testScaleCustomResource checks the scale subresource of a CRD that
// declares subresources.scale: discovery lists it after status, the Scale
// reads the declared paths (and the resource's verbs come in the CRD
// handler's order), writes set the spec replicas path, and the
// errors are the real server's.
func testScaleCustomResource(t *testing.T, f *fixture) {
	suffix := randomSuffix()
	plural, kind := "scalers"+suffix, "Scaler"+suffix
	crdName := plural + "." + widgetGroup
	f.post(t, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", `{"metadata":{"name":"`+crdName+`"},"spec":{
		"group":"`+widgetGroup+`","scope":"Namespaced","names":{"plural":"`+plural+`","kind":"`+kind+`"},
		"versions":[{"name":"v1","served":true,"storage":true,
			"subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas","labelSelectorPath":".status.selector"}},
			"schema":{"openAPIV3Schema":{"type":"object","properties":{
				"spec":{"type":"object","properties":{"replicas":{"type":"integer"}}},
				"status":{"type":"object","properties":{"replicas":{"type":"integer"},"selector":{"type":"string"}}}}}}}]}}`)
	t.Cleanup(func() {
		_, _ = f.raw(t, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+crdName, "", "", "")
	})
	base := "/apis/" + widgetGroup + "/v1/namespaces/" + f.ns + "/" + plural
	f.eventually(t, "CRD served", func() error { return f.tryList(t, base) })

	var disco struct {
		Resources []struct {
			Name, Group, Version, Kind string
			Verbs                      []string
		}
	}
	json.Unmarshal(f.send(t, "GET", "/apis/"+widgetGroup+"/v1", "", "").body, &disco)
	var mine []string
	for _, r := range disco.Resources {
		if strings.HasPrefix(r.Name, plural) {
			mine = append(mine, fmt.Sprintf("%s %s/%s %s %v", r.Name, r.Group, r.Version, r.Kind, r.Verbs))
		}
	}
	if want := plural + " / " + kind + " [delete deletecollection get list patch create update watch]; " +
		plural + "/status / " + kind + " [get patch update]; " +
		plural + "/scale autoscaling/v1 Scale [get patch update]"; strings.Join(mine, "; ") != want {
		t.Errorf("discovery lists\n\t%s\nwant\n\t%s", strings.Join(mine, "\n\t"), strings.ReplaceAll(want, "; ", "\n\t"))
	}

	f.post(t, base, `{"apiVersion":"`+widgetGroup+`/v1","kind":"`+kind+`","metadata":{"name":"w1"},"spec":{"replicas":2}}`)
	expectScale(t, "GET scale", f.scale(t, "GET scale", f.send(t, "GET", base+"/w1/scale", "", "")), `{"replicas":2}`, `{"replicas":0}`)
	f.patch(t, base+"/w1/status", `{"status":{"replicas":2,"selector":"app=w"}}`)
	expectScale(t, "GET scale after status", f.scale(t, "GET scale", f.send(t, "GET", base+"/w1/scale", "", "")),
		`{"replicas":2}`, `{"replicas":2,"selector":"app=w"}`)
	expectScale(t, "PUT scale", f.scale(t, "PUT scale", f.send(t, "PUT", base+"/w1/scale", "application/json",
		`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1","namespace":"`+f.ns+`"},"spec":{"replicas":6}}`)),
		`{"replicas":6}`, `{"replicas":2,"selector":"app=w"}`)
	expectScale(t, "merge patch", f.scale(t, "merge patch", f.send(t, "PATCH", base+"/w1/scale", "application/merge-patch+json",
		`{"spec":{"replicas":7}}`)), `{"replicas":7}`, `{"replicas":2,"selector":"app=w"}`)
	var w struct{ Spec struct{ Replicas int } }
	json.Unmarshal(f.send(t, "GET", base+"/w1", "", "").body, &w)
	if w.Spec.Replicas != 7 {
		t.Errorf("spec.replicas after scaling = %d, want 7", w.Spec.Replicas)
	}
	expectStatus(t, "PUT scale -2", f.send(t, "PUT", base+"/w1/scale", "application/json",
		`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1","namespace":"`+f.ns+`"},"spec":{"replicas":-2}}`),
		422, "Invalid", kind+"."+widgetGroup+` "w1" is invalid: .spec.replicas: Invalid value: -2: should be a non-negative integer`)
	f.post(t, base, `{"apiVersion":"`+widgetGroup+`/v1","kind":"`+kind+`","metadata":{"name":"w2"},"spec":{}}`)
	expectStatus(t, "GET scale without spec replicas", f.send(t, "GET", base+"/w2/scale", "", ""), 500, "InternalError",
		`Internal error occurred: the spec replicas field ".spec.replicas" does not exist`)
	// A write is accepted and sets the spec replicas.
	expectScale(t, "merge patch without spec replicas", f.scale(t, "merge patch", f.send(t, "PATCH", base+"/w2/scale",
		"application/merge-patch+json", `{"spec":{"replicas":3}}`)), `{"replicas":3}`, `{"replicas":0}`)
	json.Unmarshal(f.send(t, "GET", base+"/w2", "", "").body, &w)
	if w.Spec.Replicas != 3 {
		t.Errorf("spec.replicas after scaling an object without = %d, want 3", w.Spec.Replicas)
	}
	// The real server cannot apply a custom resource's Scale.
	apply := func(name, query string) rawResponse {
		return f.send(t, "PATCH", base+"/"+name+"/scale?fieldManager=scaler"+query, "application/apply-patch+yaml",
			`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"`+name+`"},"spec":{"replicas":4}}`)
	}
	const convert = " to proper version: request to convert CR to an invalid group/version: autoscaling/v1"
	expectStatus(t, "apply a Scale", apply("w1", ""), 409, "Conflict",
		`Apply failed with 1 conflict: conflict with "kubeloop" with subresource "scale" using autoscaling/v1: .spec.replicas`)
	expectStatus(t, "apply a Scale with force", apply("w1", "&force=true"), 500, "",
		"failed to convert new object (/w1; autoscaling/v1, Kind=Scale)"+convert)
	f.post(t, base, `{"apiVersion":"`+widgetGroup+`/v1","kind":"`+kind+`","metadata":{"name":"w3"},"spec":{}}`)
	expectStatus(t, "apply the Scale of an object without spec replicas", apply("w3", ""), 500, "",
		"failed to create manager for existing fields: failed to convert live object (/; autoscaling/v1, Kind=Scale)"+convert)
}
