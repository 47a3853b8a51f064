// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// testStatusMetadata merge-patches the status subresource with metadata
// changes: the real server's status strategies keep the patch's
// metadata (annotations, finalizers, owner references, labels) but what
// each kind resets (a Deployment's labels, a Pod's owner references, all
// of a custom resource's metadata), and record what they keep in the
// status entry of managedFields (1.33, a custom resource's too).
func testStatusMetadata(t *testing.T, f *fixture) {
	owner := f.configMap("owner", nil, nil)
	f.mustCreate(t, owner)
	gvk := f.installWidgets(t)
	for _, c := range []struct {
		name, path, body string
		// kept says which of labels, annotations, finalizers and
		// ownerReferences the status write changes.
		labels, others bool
		ownerRefs      bool
	}{
		{"Deployment", "/apis/apps/v1/namespaces/" + f.ns + "/deployments", deploymentJSON("d"), false, true, true},
		{"Pod", "/api/v1/namespaces/" + f.ns + "/pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"l":"1"},"annotations":{"n":"1"}},
			"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, true, true, false},
		{"Service", "/api/v1/namespaces/" + f.ns + "/services", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","labels":{"l":"1"},"annotations":{"n":"1"}},
			"spec":{"ports":[{"port":80}]}}`, true, true, true},
		{"CustomResource", "/apis/" + gvk.Group + "/v1/namespaces/" + f.ns + "/widgets" + strings.TrimPrefix(gvk.Kind, "Widget"),
			`{"apiVersion":"` + gvk.Group + `/v1","kind":"` + gvk.Kind + `","metadata":{"name":"w","labels":{"l":"1"},"annotations":{"n":"1"}},"spec":{"size":1}}`,
			false, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := statusMetaName(t, c.body)
			f.post(t, c.path, c.body)
			t.Cleanup(func() {
				f.send(t, "PATCH", c.path+"/"+name, "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
			})
			r := f.send(t, "PATCH", c.path+"/"+name+"/status", "application/merge-patch+json",
				`{"metadata":{"labels":{"l":"2"},"annotations":{"n":"2"},"finalizers":["example.com/hold"],`+
					`"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"`+owner.UID+`"}]}}`)
			if r.code != 200 {
				t.Fatalf("status patch = %d %s", r.code, r.body)
			}
			var got struct {
				Metadata struct {
					Labels          map[string]string
					Annotations     map[string]string
					Finalizers      []string
					OwnerReferences []map[string]any
					ManagedFields   []map[string]any
				}
			}
			if err := json.Unmarshal(f.send(t, "GET", c.path+"/"+name, "", "").body, &got); err != nil {
				t.Fatal(err)
			}
			m := got.Metadata
			want := func(changed bool, before, after string) string {
				if changed {
					return after
				}
				return before
			}
			if m.Labels["l"] != want(c.labels, "1", "2") || m.Annotations["n"] != want(c.others, "1", "2") ||
				(len(m.Finalizers) == 1) != c.others || (len(m.OwnerReferences) == 1) != c.ownerRefs {
				t.Errorf("after a status patch of metadata: labels %v annotations %v finalizers %v ownerReferences %v; "+
					"want labels changed %v, annotations and finalizers changed %v, ownerReferences changed %v",
					m.Labels, m.Annotations, m.Finalizers, m.OwnerReferences, c.labels, c.others, c.ownerRefs)
			}
			var status []string
			for _, e := range m.ManagedFields {
				if e["subresource"] == "status" {
					fields, _ := json.Marshal(e["fieldsV1"])
					status = append(status, string(fields))
				}
			}
			// 1.33 records in the status entry the metadata of a custom
			// resource's patch that its strategy then resets.
			wantEntry := c.others || c.name == "CustomResource" && f.minor(t) <= minorOldest
			if len(status) > 0 != wantEntry || wantEntry && !strings.Contains(status[0], `"f:annotations":{"f:n":{}}`) {
				t.Errorf("status entries of managedFields %v; want one owning the annotation: %v", status, wantEntry)
			}
		})
	}
}

// deploymentJSON is a Deployment named name with label l=1 and
// annotation n=1.
func deploymentJSON(name string) string {
	return fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q,"labels":{"l":"1"},"annotations":{"n":"1"}},
		"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`, name)
}

// statusMetaName is the metadata.name of a JSON object.
func statusMetaName(t *testing.T, body string) string {
	var o struct{ Metadata struct{ Name string } }
	if err := json.Unmarshal([]byte(body), &o); err != nil || o.Metadata.Name == "" {
		t.Fatalf("body %s: %v", body, err)
	}
	return o.Metadata.Name
}
