// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"maps"
	"net/netip"
	"reflect"
	"slices"
	"testing"
)

// testServiceDefaults: a Service is stored with the defaults of its kind
// (type, session affinity, port protocol and target port, traffic policy),
// which its writer's managedFields own, and, unless it is an ExternalName
// one, a cluster IP of the service range with its IP families; an update
// that leaves the allocated fields out keeps them.
func testServiceDefaults(t *testing.T, f *fixture) {
	path := "/api/v1/namespaces/" + f.ns + "/services"
	const common = `"internalTrafficPolicy":"Cluster","sessionAffinity":"None","type":"ClusterIP"`
	for _, tc := range []struct{ body, want string }{
		{`{"metadata":{"name":"a"},"spec":{"selector":{"app":"x"},"ports":[{"port":80}]}}`,
			`{"clusterIP":"IP","clusterIPs":["IP"],` + common + `,"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",` +
				`"ports":[{"port":80,"protocol":"TCP","targetPort":80}],"selector":{"app":"x"}}`},
		{`{"metadata":{"name":"b"},"spec":{"clusterIP":"None","selector":{"app":"x"},"ports":[{"port":80}]}}`,
			`{"clusterIP":"None","clusterIPs":["None"],` + common + `,"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",` +
				`"ports":[{"port":80,"protocol":"TCP","targetPort":80}],"selector":{"app":"x"}}`},
		{`{"metadata":{"name":"c"},"spec":{"clusterIP":"None","ports":[{"port":80}]}}`,
			`{"clusterIP":"None","clusterIPs":["None"],` + common + `,"ipFamilies":["IPv4","IPv6"],"ipFamilyPolicy":"RequireDualStack",` +
				`"ports":[{"port":80,"protocol":"TCP","targetPort":80}]}`},
		{`{"metadata":{"name":"d"},"spec":{"type":"ExternalName","externalName":"example.com"}}`,
			`{"externalName":"example.com","sessionAffinity":"None","type":"ExternalName"}`},
		{`{"metadata":{"name":"e"},"spec":{"ports":[{"port":80,"targetPort":"http","name":"x"}]}}`,
			`{"clusterIP":"IP","clusterIPs":["IP"],` + common + `,"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",` +
				`"ports":[{"name":"x","port":80,"protocol":"TCP","targetPort":"http"}]}`},
	} {
		r := f.send(t, "POST", path, "application/json", tc.body)
		if r.code != 201 {
			t.Fatalf("create %s = %d %s", tc.body, r.code, r.body)
		}
		want := compactJSON(t, tc.want)
		if got := maskedServiceSpec(t, r.object(t)); got != want {
			t.Errorf("created from %s, spec\n  %s\nwant\n  %s", tc.body, got, want)
		}
	}

	a := f.send(t, "GET", path+"/a", "", "").object(t)
	// The defaults belong to the writer; the allocation to nobody. (How
	// ports and selector are owned is the field manager's business.)
	mf, _ := a["metadata"].(map[string]any)["managedFields"].([]any)
	var owned []string
	if len(mf) == 1 {
		fields, _ := mf[0].(map[string]any)["fieldsV1"].(map[string]any)
		spec, _ := fields["f:spec"].(map[string]any)
		owned = slices.Sorted(maps.Keys(spec))
	}
	if want := []string{"f:internalTrafficPolicy", "f:ports", "f:selector", "f:sessionAffinity", "f:type"}; !slices.Equal(owned, want) {
		t.Errorf("managedFields of a = %v, want one entry owning spec fields %v", mf, want)
	}
	ip := a["spec"].(map[string]any)["clusterIP"]
	put := `{"apiVersion":"v1","kind":"Service","metadata":{"name":"a","resourceVersion":"` +
		a["metadata"].(map[string]any)["resourceVersion"].(string) + `"},"spec":{"selector":{"app":"y"},"ports":[{"port":81}]}}`
	r := f.send(t, "PUT", path+"/a", "application/json", put)
	if r.code != 200 {
		t.Fatalf("update of a = %d %s", r.code, r.body)
	}
	spec := r.object(t)["spec"].(map[string]any)
	if spec["clusterIP"] != ip || !reflect.DeepEqual(spec["clusterIPs"], []any{ip}) || spec["ipFamilyPolicy"] != "SingleStack" {
		t.Errorf("an update without the allocated fields left spec %v, want clusterIP %v kept", spec, ip)
	}
}

// maskedServiceSpec is a Service's spec as compact JSON with an allocated
// cluster IP (checked to be in the service range and in clusterIPs)
// replaced by "IP".
func maskedServiceSpec(t *testing.T, svc map[string]any) string {
	t.Helper()
	spec, _ := svc["spec"].(map[string]any)
	if ip, _ := spec["clusterIP"].(string); ip != "" && ip != "None" {
		addr, err := netip.ParseAddr(ip)
		if err != nil || !netip.MustParsePrefix("10.0.0.0/24").Contains(addr) || addr.As4()[3] < 2 || addr.As4()[3] == 255 {
			t.Errorf("clusterIP %q is not an address the service range 10.0.0.0/24 hands out", ip)
		}
		if !reflect.DeepEqual(spec["clusterIPs"], []any{ip}) {
			t.Errorf("clusterIPs %v, want [%s]", spec["clusterIPs"], ip)
		}
		spec["clusterIP"], spec["clusterIPs"] = "IP", []any{"IP"}
	}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
