// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
)

// ownedBody is a ConfigMap named name owned by the ConfigMap owner (whose
// uid is uid), blocking its deletion when block is set.
func ownedBody(name, owner, uid string, block bool) string {
	ref := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": owner, "uid": uid}
	if block {
		ref["blockOwnerDeletion"] = true
	}
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"name": name, "ownerReferences": []any{ref}}})
	return string(b)
}

// TestControllersUnderSynctest is what an operator's test does: delete an
// owner, then a namespace, and wait on a watch for what follows. Inside a
// synctest bubble the waits end at once, and the namespace goes through
// the same events as on a real cluster (captured from kube-apiserver and
// kube-controller-manager 1.36.3): Terminating, conditions saying a
// finalizer holds content, conditions all clear, deleted.
func TestControllersUnderSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := newTestServer(t, Options{})
		c.mustDo(201, "POST", "/api/v1/namespaces", `{"metadata":{"name":"app"}}`)
		const p = "/api/v1/namespaces/app/configmaps"
		owner := c.mustDo(201, "POST", p, `{"metadata":{"name":"owner"}}`)
		c.mustDo(201, "POST", p, ownedBody("dep", "owner", field(owner, "metadata.uid").(string), true))
		c.mustDo(201, "POST", p, `{"metadata":{"name":"held","finalizers":["example.com/x"]}}`)
		cms := openWatch(t, c, p+"?watch=1")
		nss := openWatch(t, c, "/api/v1/namespaces?watch=1&fieldSelector=metadata.name=app")
		cms.pending() // the initial ADDED events
		nss.pending()

		c.mustDo(200, "DELETE", p+"/owner", "")
		lines, _ := cms.pending()
		if got := summaries(t, lines); !reflect.DeepEqual(got, []string{"DELETED owner", "DELETED dep"}) {
			t.Errorf("events after deleting the owner = %q, want the owner then its dependent deleted", got)
		}

		c.mustDo(200, "DELETE", "/api/v1/namespaces/app", "")
		c.mustDo(200, "PATCH", p+"/held", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
		lines, _ = nss.pending()
		var got []string
		for _, l := range lines {
			var e map[string]any
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatal(err)
			}
			conds, _ := field(e, "object.status.conditions").([]any)
			var remaining []string
			for _, c := range conds {
				if m := c.(map[string]any); m["status"] == "True" {
					remaining = append(remaining, m["type"].(string))
				}
			}
			got = append(got, strings.TrimSpace(e["type"].(string)+" "+field(e, "object.status.phase").(string)+" "+
				strings.Join(remaining, ",")))
		}
		want := []string{
			"MODIFIED Terminating",
			"MODIFIED Terminating NamespaceContentRemaining,NamespaceFinalizersRemaining",
			"MODIFIED Terminating",
			"DELETED Terminating",
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("namespace events = %q, want %q", got, want)
		}
	})
}

func summaries(t *testing.T, lines []string) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e["type"].(string)+" "+field(e, "object.metadata.name").(string))
	}
	return out
}

// TestDisableGarbageCollection: without the collector, dependents outlive
// their owners and the finalizers the API server adds for Foreground and
// Orphan stay, as on a kube-apiserver without kube-controller-manager; the
// namespace controller still runs.
func TestDisableGarbageCollection(t *testing.T) {
	_, c := newTestServer(t, Options{DisableGarbageCollection: true})
	for _, policy := range []string{"Background", "Foreground", "Orphan"} {
		owner := c.mustDo(201, "POST", cmPath, `{"metadata":{"name":"owner"}}`)
		c.mustDo(201, "POST", cmPath, ownedBody("dep", "owner", field(owner, "metadata.uid").(string), true))
		c.mustDo(200, "DELETE", cmPath+"/owner?propagationPolicy="+policy, "")
		dep := c.mustDo(200, "GET", cmPath+"/dep", "")
		if field(dep, "metadata.deletionTimestamp") != nil || field(dep, "metadata.ownerReferences") == nil {
			t.Errorf("%s: dependent = %v, want it untouched", policy, dep)
		}
		if policy != "Background" {
			got := c.mustDo(200, "GET", cmPath+"/owner", "")
			fins := field(got, "metadata.finalizers")
			want := map[string][]any{"Foreground": {"foregroundDeletion"}, "Orphan": {"orphan"}}[policy]
			if !reflect.DeepEqual(fins, want) {
				t.Errorf("%s: owner finalizers = %v, want %v", policy, fins, want)
			}
			c.mustDo(200, "PATCH", cmPath+"/owner", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
		}
		c.mustDo(404, "GET", cmPath+"/owner", "")
		c.mustDo(200, "DELETE", cmPath+"/dep", "")
	}
	c.mustDo(201, "POST", "/api/v1/namespaces", `{"metadata":{"name":"gone"}}`)
	c.mustDo(200, "DELETE", "/api/v1/namespaces/gone", "")
	c.mustDo(404, "GET", "/api/v1/namespaces/gone", "")
}

// TestDeleteChangesGCFinalizers: a second DELETE of an object marked
// deleting changes only the collector's finalizers, as the real server
// does: Orphan then Background removes the orphan finalizer, and with it
// the object when nothing else holds it.
func TestDeleteChangesGCFinalizers(t *testing.T) {
	_, c := newTestServer(t, Options{DisableGarbageCollection: true})
	c.mustDo(201, "POST", cmPath, `{"metadata":{"name":"x","finalizers":["example.com/x"]}}`)
	got := c.mustDo(200, "DELETE", cmPath+"/x?propagationPolicy=Orphan", "")
	if fins := field(got, "metadata.finalizers"); !reflect.DeepEqual(fins, []any{"example.com/x", "orphan"}) {
		t.Errorf("after an orphan delete: finalizers %v", fins)
	}
	got = c.mustDo(200, "DELETE", cmPath+"/x?propagationPolicy=Foreground", "")
	if fins := field(got, "metadata.finalizers"); !reflect.DeepEqual(fins, []any{"example.com/x", "foregroundDeletion"}) {
		t.Errorf("after a foreground delete: finalizers %v", fins)
	}
	got = c.mustDo(200, "DELETE", cmPath+"/x", "")
	if fins := field(got, "metadata.finalizers"); !reflect.DeepEqual(fins, []any{"example.com/x", "foregroundDeletion"}) {
		t.Errorf("after a delete with the default policy: finalizers %v, want them kept", fins)
	}
	got = c.mustDo(200, "DELETE", cmPath+"/x?propagationPolicy=Background", "")
	if fins := field(got, "metadata.finalizers"); !reflect.DeepEqual(fins, []any{"example.com/x"}) {
		t.Errorf("after a background delete: finalizers %v", fins)
	}
}
