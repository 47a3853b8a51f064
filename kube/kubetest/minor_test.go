// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
)

func TestMinorOutsideTheServedOnesPanicsWithTheRange(t *testing.T) {
	for _, minor := range []int{-1, 1, OldestMinor - 1, NewestMinor + 1} {
		func() {
			defer func() {
				want := fmt.Sprintf("kubetest: Options.Minor %d is not a minor kubetest acts as: it acts as Kubernetes 1.%d to 1.%d",
					minor, OldestMinor, NewestMinor)
				if got := fmt.Sprint(recover()); got != want {
					t.Errorf("New(Minor %d) panicked with %q, want %q", minor, got, want)
				}
			}()
			New(Options{Minor: minor})
		}()
	}
}

func TestMinorVersionReported(t *testing.T) {
	for minor, want := range map[int]string{0: Version, NewestMinor: Version, 33: "v1.33.13", 35: "v1.35.4"} {
		_, c := newTestServer(t, Options{Minor: minor})
		v := c.mustDo(200, "GET", "/version", "")
		if v["gitVersion"] != want || v["minor"] != strings.Split(want, ".")[1] {
			t.Errorf("Minor %d: /version = %v %v, want %s", minor, v["gitVersion"], v["minor"], want)
		}
	}
}

func TestMinor33RefusesWatchList(t *testing.T) {
	_, c := newTestServer(t, Options{Minor: 33})
	r := c.do("GET", cmPath+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", "")
	want := `ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: ` +
		`sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled`
	if m := r.json(t); r.code != 422 || m["reason"] != "Invalid" || m["message"] != want {
		t.Fatalf("WatchList on 1.33 = %d %s, want 422 Invalid %q", r.code, r.body, want)
	}
	_, c = newTestServer(t, Options{Minor: 34})
	resp := c.open(t.Context(), "GET", cmPath+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", "")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("WatchList on 1.34 = %d, want 200", resp.StatusCode)
	}
}

// A 1.33 watch from no resourceVersion still starts with the state, but
// is not a WatchList: no initial-events-end bookmark.
func TestMinor33LegacyWatchHasNoInitialEventsEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := newTestServer(t, Options{Minor: 33})
		createCM(c, "a", "")
		w := openWatch(t, c, cmPath+"?watch=1&allowWatchBookmarks=true")
		if got := summary(w.next()); !strings.HasPrefix(got, "ADDED a ") {
			t.Errorf("first event = %s, want ADDED a", got)
		}
		if lines, _ := w.pending(); len(lines) != 0 {
			t.Errorf("after the state: %q, want nothing (no bookmark)", lines)
		}
	})
}

func TestMinorBefore36IgnoresShardSelector(t *testing.T) {
	sel := "?shardSelector=" + strings.ReplaceAll("shardRange(object.metadata.uid,'0x0000000000000000','0x0000000000000001')", ",", "%2C")
	for minor, wantFiltered := range map[int]bool{33: false, 35: false, 36: true} {
		_, c := newTestServer(t, Options{Minor: minor})
		for _, n := range []string{"a", "b", "c"} {
			createCM(c, n, "")
		}
		list := c.mustDo(200, "GET", cmPath+sel, "")
		items, _ := list["items"].([]any)
		_, hasInfo := list["metadata"].(map[string]any)["shardInfo"]
		if filtered := len(items) < 3 || hasInfo; filtered != wantFiltered {
			t.Errorf("Minor %d: list with a shard selector has %d of 3 items, shardInfo %v; want filtered %v",
				minor, len(items), hasInfo, wantFiltered)
		}
	}
}

func TestMinorServesItsResources(t *testing.T) {
	type probe struct {
		path string
		code int
	}
	for minor, probes := range map[int][]probe{
		33: {{"/apis/resource.k8s.io", 404}, {"/apis/resource.k8s.io/v1/deviceclasses", 404},
			{"/apis/storage.k8s.io/v1/volumeattributesclasses", 404},
			{"/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies", 404},
			{"/apis/storage.k8s.io/v1/storageclasses", 200}},
		35: {{"/apis/resource.k8s.io/v1/deviceclasses", 200}, {"/apis/storage.k8s.io/v1/volumeattributesclasses", 200},
			{"/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies", 404},
			{"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", 200}},
		36: {{"/apis/certificates.k8s.io/v1/clustertrustbundles", 404}, {"/apis/storagemigration.k8s.io", 404},
			{"/apis/resource.k8s.io/v1/devicetaintrules", 404}, {"/apis/certificates.k8s.io/v1/podcertificaterequests", 404}},
		37: {{"/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies", 200},
			{"/apis/certificates.k8s.io/v1/clustertrustbundles", 200}, {"/apis/storagemigration.k8s.io/v1/storageversionmigrations", 200},
			{"/apis/resource.k8s.io/v1/devicetaintrules", 200}, {"/apis/certificates.k8s.io/v1/podcertificaterequests", 200}},
	} {
		_, c := newTestServer(t, Options{Minor: minor})
		for _, p := range probes {
			if r := c.do("GET", p.path, ""); r.code != p.code {
				t.Errorf("Minor %d: GET %s = %d, want %d", minor, p.path, r.code, p.code)
			}
		}
	}
}

// Discovery and OpenAPI of an older minor list what it serves only.
func TestMinor33DiscoveryAndOpenAPI(t *testing.T) {
	_, c := newTestServer(t, Options{Minor: 33})
	storage := fmt.Sprint(c.mustDo(200, "GET", "/apis/storage.k8s.io/v1", "")["resources"])
	if strings.Contains(storage, "volumeattributesclasses") || !strings.Contains(storage, "storageclasses") {
		t.Errorf("1.33 storage.k8s.io/v1 resources = %s, want storageclasses and no volumeattributesclasses", storage)
	}
	groups := fmt.Sprint(c.mustDo(200, "GET", "/apis", "")["groups"])
	if strings.Contains(groups, "resource.k8s.io") {
		t.Errorf("1.33 /apis lists resource.k8s.io: %s", groups)
	}
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(c.do("GET", "/openapi/v3", "").body, &index); err != nil {
		t.Fatal(err)
	}
	if _, ok := index.Paths["apis/resource.k8s.io/v1"]; ok {
		t.Errorf("1.33 /openapi/v3 publishes apis/resource.k8s.io/v1")
	}
	doc := string(c.do("GET", "/openapi/v3/"+strings.TrimPrefix(index.Paths["apis/admissionregistration.k8s.io/v1"].ServerRelativeURL, "/openapi/v3/"), "").body)
	if strings.Contains(doc, "/mutatingadmissionpolicies") || !strings.Contains(doc, "/validatingadmissionpolicies") {
		t.Errorf("1.33 admissionregistration.k8s.io/v1 OpenAPI: mutating policies present or validating ones absent")
	}
	v2 := string(c.do("GET", "/openapi/v2", "").body)
	if strings.Contains(v2, "/apis/resource.k8s.io/v1/") {
		t.Errorf("1.33 /openapi/v2 has resource.k8s.io paths")
	}
}

func TestMinorOwnerReferenceWording(t *testing.T) {
	for minor, want := range map[int]string{
		37: `ConfigMap "v" is invalid: [metadata.ownerReferences[0].apiVersion: Invalid value: "apps/": must be <group>/<version> or <version>, ` +
			`metadata.ownerReferences[0].uid: Required value: must not be empty]`,
		36: `ConfigMap "v" is invalid: [metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty, ` +
			`metadata.ownerReferences.uid: Invalid value: "": must not be empty]`,
		33: `ConfigMap "v" is invalid: [metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty, ` +
			`metadata.ownerReferences.uid: Invalid value: "": uid must not be empty]`,
	} {
		_, c := newTestServer(t, Options{Minor: minor})
		r := c.do("POST", cmPath, `{"metadata":{"name":"v","ownerReferences":[{"apiVersion":"apps/","kind":"Deployment","name":"a"}]}}`)
		if m := r.json(t); r.code != 422 || m["message"] != want {
			t.Errorf("Minor %d: owner reference errors = %d %v, want 422 %s", minor, r.code, m["message"], want)
		}
	}
}

func TestMinorCRDTable(t *testing.T) {
	const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"
	for minor, want := range map[int]string{
		37: `[Name Scope Versions Created At Group Kind ShortNames Established]` +
			` [widgets.example.com Namespaced v1(storage) T example.com Widget wd true]`,
		36: `[Name Created At] [widgets.example.com T]`,
	} {
		_, c := newTestServer(t, Options{Minor: minor})
		c.mustDo(201, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", `{"metadata":{"name":"widgets.example.com"},
			"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"]},
			"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`)
		tbl := c.mustDo(200, "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", "Accept", tableAccept)
		var names []string
		for _, col := range tbl["columnDefinitions"].([]any) {
			names = append(names, col.(map[string]any)["name"].(string))
		}
		cells := tbl["rows"].([]any)[0].(map[string]any)["cells"].([]any)
		for i := range cells {
			if names[i] == "Created At" {
				cells[i] = "T"
			}
		}
		if got := fmt.Sprint(names, " ", cells); got != want {
			t.Errorf("Minor %d: CRD table = %s, want %s", minor, got, want)
		}
	}
}

func TestMinorShardedPageRemainingItemCount(t *testing.T) {
	sel := "&shardSelector=" + strings.ReplaceAll("shardRange(object.metadata.uid,'0x0000000000000000','0x10000000000000000')", ",", "%2C")
	for minor, wantCount := range map[int]bool{36: true, 37: false} {
		_, c := newTestServer(t, Options{Minor: minor})
		for _, n := range []string{"a", "b", "c"} {
			createCM(c, n, "")
		}
		meta := c.mustDo(200, "GET", cmPath+"?limit=1"+sel, "")["metadata"].(map[string]any)
		if _, has := meta["remainingItemCount"]; has != wantCount || meta["continue"] == nil {
			t.Errorf("Minor %d: sharded page metadata = %v, want a continue token and remainingItemCount %v", minor, meta, wantCount)
		}
	}
}

// 1.33 answers a PUT of an object deleted since it was read (its uid in
// the body) with storage's precondition error as a 409; 1.34 and later
// with 404.
func TestMinor33UpdateOfDeletedObjectConflicts(t *testing.T) {
	for minor, wantCode := range map[int]int{33: 409, 34: 404, 37: 404} {
		_, c := newTestServer(t, Options{Minor: minor})
		cm := createCM(c, "x", "")
		c.mustDo(200, "DELETE", cmPath+"/x", "")
		uid := field(cm, "metadata.uid").(string)
		r := c.do("PUT", cmPath+"/x", `{"metadata":{"name":"x","uid":"`+uid+`","resourceVersion":"`+
			field(cm, "metadata.resourceVersion").(string)+`"},"data":{"a":"b"}}`)
		m := r.json(t)
		if r.code != wantCode {
			t.Errorf("Minor %d: PUT of a deleted object = %d %s, want %d", minor, r.code, r.body, wantCode)
		}
		want := `Operation cannot be fulfilled on configmaps "x": StorageError: invalid object, Code: 4, ` +
			`Key: /registry/configmaps/default/x, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ` +
			`UID in precondition: ` + uid + `, UID in object meta: `
		if wantCode == 409 && (m["message"] != want || m["reason"] != "Conflict") {
			t.Errorf("Minor 33: message %q reason %v, want Conflict %q", m["message"], m["reason"], want)
		}
	}
}

func TestMinorFeatureGates(t *testing.T) {
	_, c := newTestServer(t, Options{Minor: 33, FeatureGates: map[string]bool{"WatchList": true}})
	resp := c.open(t.Context(), "GET", cmPath+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", "")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("WatchList on 1.33 with its gate on = %d, want 200", resp.StatusCode)
	}
	_, c = newTestServer(t, Options{FeatureGates: map[string]bool{"WatchList": false}})
	if r := c.do("GET", cmPath+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", ""); r.code != 422 {
		t.Errorf("WatchList with its gate off = %d, want 422", r.code)
	}
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Minor: 35, FeatureGates: map[string]bool{"ShardedListAndWatch": true}},
			"kubetest: Options.FeatureGates: 1.35 has no feature gate ShardedListAndWatch (1.36 and later have)"},
		{Options{FeatureGates: map[string]bool{"Nope": true}},
			`kubetest: Options.FeatureGates: "Nope" is not a feature gate kubetest models (WatchList, ShardedListAndWatch)`},
	} {
		func() {
			defer func() {
				if got := fmt.Sprint(recover()); got != tc.want {
					t.Errorf("New(%v) panicked with %q, want %q", tc.opts.FeatureGates, got, tc.want)
				}
			}()
			New(tc.opts)
		}()
	}
}

func TestMinorAccessReviewAttributesWording(t *testing.T) {
	const exactlyOne = "exactly one of nonResourceAttributes or resourceAttributes must be specified"
	const both = `"resourceAttributes":{"verb":"get","resource":"pods"},"nonResourceAttributes":{"path":"/metrics","verb":"get"}`
	for _, tc := range []struct {
		minor       int
		spec, error string
	}{
		{37, ``, `spec: Invalid value: null: ` + exactlyOne},
		{37, both, `spec: Invalid value: {"path":"/metrics","verb":"get"}: ` + exactlyOne},
		{36, ``, `spec.resourceAttributes: Invalid value: null: ` + exactlyOne},
		{36, both, `spec.nonResourceAttributes: Invalid value: {"path":"/metrics","verb":"get"}: cannot be specified in combination with resourceAttributes`},
	} {
		_, c := newTestServer(t, Options{Minor: tc.minor})
		r := c.do("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
			`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{`+tc.spec+`}}`)
		want := `.authorization.k8s.io "" is invalid: ` + tc.error // the real server names no kind
		if m := r.json(t); r.code != 422 || m["message"] != want {
			t.Errorf("Minor %d, spec {%s}: %d %v, want 422 %s", tc.minor, tc.spec, r.code, m["message"], want)
		}
	}
}
