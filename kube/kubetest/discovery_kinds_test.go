// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/discovery"
)

// aggregated decodes an APIGroupDiscoveryList into its resources by
// "group/version/resource", and its group names in order.
func aggregated(t *testing.T, body []byte) (map[string]map[string]any, []string) {
	t.Helper()
	var list struct {
		Items []struct {
			Metadata struct{ Name string }
			Versions []struct {
				Version   string
				Resources []map[string]any
			}
		}
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatalf("decode discovery: %v", err)
	}
	res := map[string]map[string]any{}
	var groups []string
	for _, g := range list.Items {
		groups = append(groups, g.Metadata.Name)
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				res[g.Metadata.Name+"/"+v.Version+"/"+r["resource"].(string)] = r
			}
		}
	}
	return res, groups
}

// notServed are the resources of the real server's discovery kubetest
// does not serve, so does not list (DIFFERENCES.md, "Served kinds").
var notServed []string

// TestDiscoveryMatchesCapturedKinds compares kubetest's aggregated
// discovery with the real server's (testdata/discovery.json): the same
// groups in the same order, and every resource with the same kind, scope,
// singular name, verbs, short names and categories, except the resources
// of notServed, which kubetest does not list, and the same subresources
// in the same order (those it cannot carry out, such as pods/exec,
// included).
func TestDiscoveryMatchesCapturedKinds(t *testing.T) {
	raw, err := os.ReadFile(discoveryFile)
	if err != nil {
		t.Fatal(err)
	}
	var capture map[string]json.RawMessage
	if err := json.Unmarshal(raw, &capture); err != nil {
		t.Fatal(err)
	}
	_, c := newTestServer(t, Options{})
	for _, p := range []string{"/api", "/apis"} {
		want, wantGroups := aggregated(t, capture[p])
		got, gotGroups := aggregated(t, c.mustDoRaw(t, p))
		if !slices.Equal(gotGroups, wantGroups) {
			t.Errorf("%s groups = %v, want %v", p, gotGroups, wantGroups)
		}
		for k, w := range want {
			g, ok := got[k]
			if !ok {
				if !slices.Contains(notServed, k) {
					t.Errorf("%s: %s is not listed", p, k)
				}
				continue
			}
			if slices.Contains(notServed, k) {
				t.Errorf("%s: %s is listed, and in notServed", p, k)
			}
			for _, f := range []string{"responseKind", "scope", "singularResource", "verbs", "shortNames", "categories"} {
				if !reflect.DeepEqual(g[f], w[f]) {
					t.Errorf("%s: %s %s = %v, want %v", p, k, f, g[f], w[f])
				}
			}
			if !reflect.DeepEqual(g["subresources"], w["subresources"]) {
				t.Errorf("%s: %s subresources = %v, want %v", p, k, g["subresources"], w["subresources"])
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: %s is listed, and not by the real server", p, k)
			}
		}
	}
}

// mustDoRaw GETs the aggregated discovery document at path.
func (c *client) mustDoRaw(t *testing.T, path string) []byte {
	t.Helper()
	r := c.do("GET", path, "", "Accept", discovery.AggregatedType)
	if r.code != 200 {
		t.Fatalf("GET %s = %d %s", path, r.code, r.body)
	}
	return r.body
}
