// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// testSelfReviews checks the reviews a user makes of itself, as `kubectl
// auth whoami` (SelfSubjectReview) and `kubectl auth can-i --list`
// (SelfSubjectRulesReview) send them: the admin is in system:masters and
// may do everything, the denied user only what every authenticated user
// may (review itself, read discovery and health).
func testSelfReviews(t *testing.T, f *fixture) {
	if f.env.DeniedConfig == nil {
		t.Fatal("the environment has no denied user: this scenario cannot run")
	}
	const whoami = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
	const rules = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
	for _, tc := range []struct {
		user   string
		send   func(path, body string) rawResponse
		uid    string // of the harness's token file, and kubetest's Options.UIDs
		groups string
		all    bool
	}{
		{"admin", func(p, b string) rawResponse { return f.send(t, "POST", p, "application/json", b) },
			"1", "system:masters system:authenticated", true},
		{"denied", func(p, b string) rawResponse {
			return f.sendAs(t, f.env.DeniedConfig, "POST", p, "application/json", b)
		},
			"2", "system:authenticated", false},
	} {
		r := tc.send(whoami, `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
		var who struct {
			Kind, APIVersion string
			Metadata         map[string]any
			Status           struct {
				UserInfo struct {
					Username string
					UID      string
					Groups   []string
				}
			}
		}
		if err := json.Unmarshal(r.body, &who); err != nil || r.code != 201 {
			t.Fatalf("SelfSubjectReview as %s = %d %s", tc.user, r.code, r.body)
		}
		ui := who.Status.UserInfo
		if who.Kind != "SelfSubjectReview" || who.APIVersion != "authentication.k8s.io/v1" || ui.Username != tc.user || ui.UID != tc.uid ||
			strings.Join(ui.Groups, " ") != tc.groups || len(who.Metadata) != 1 || who.Metadata["creationTimestamp"] == nil {
			t.Errorf("SelfSubjectReview as %s = %s, want user %s uid %s in groups %s and a creationTimestamp", tc.user, r.body, tc.user, tc.uid, tc.groups)
		}

		r = tc.send(rules, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"`+f.ns+`"}}`)
		var review struct {
			Metadata map[string]any
			Spec     map[string]any
			Status   struct {
				ResourceRules []struct {
					Verbs, APIGroups, Resources []string
				}
				NonResourceRules []struct {
					Verbs, NonResourceURLs []string
				}
				Incomplete *bool
			}
		}
		if err := json.Unmarshal(r.body, &review); err != nil || r.code != 201 {
			t.Fatalf("SelfSubjectRulesReview as %s = %d %s", tc.user, r.code, r.body)
		}
		var got []string
		for _, rr := range review.Status.ResourceRules {
			got = append(got, strings.Join(rr.Verbs, ",")+" "+strings.Join(rr.APIGroups, ",")+" "+strings.Join(rr.Resources, ","))
		}
		for _, nr := range review.Status.NonResourceRules {
			got = append(got, strings.Join(nr.Verbs, ",")+" "+strings.Join(nr.NonResourceURLs, ","))
		}
		slices.Sort(got)
		want := []string{
			"create authentication.k8s.io selfsubjectreviews",
			"create authorization.k8s.io selfsubjectaccessreviews,selfsubjectrulesreviews",
			"get /api,/api/*,/apis,/apis/*,/healthz,/livez,/openapi,/openapi/*,/readyz,/version,/version/",
			"get /healthz,/livez,/readyz,/version,/version/",
		}
		if tc.all {
			want = append(want, "* * *", "* *")
		}
		slices.Sort(want)
		// 1.33 writes the zero creationTimestamp as null.
		metaOK := len(review.Metadata) == 0
		if f.minor(t) <= minorOldest {
			v, ok := review.Metadata["creationTimestamp"]
			metaOK = len(review.Metadata) == 1 && ok && v == nil
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") || !metaOK || len(review.Spec) != 0 ||
			review.Status.Incomplete == nil || *review.Status.Incomplete {
			t.Errorf("SelfSubjectRulesReview as %s = %s\nrules:\n\t%s\nwant:\n\t%s", tc.user, r.body,
				strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
		}
	}
	r := f.send(t, "POST", rules, "application/json", `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{}}`)
	expectStatus(t, "SelfSubjectRulesReview without namespace", r, 400, "BadRequest", "no namespace on request")

	// kubectl sends both as protobuf.
	const pb = "application/vnd.kubernetes.protobuf"
	r = f.send(t, "POST", whoami, pb, string(protoObject("authentication.k8s.io/v1", "SelfSubjectReview", protoBytes(nil, 1, nil))))
	if r.code != 201 || !strings.Contains(string(r.body), `"username":"admin"`) {
		t.Errorf("SelfSubjectReview as protobuf = %d %s, want 201 for admin", r.code, r.body)
	}
	spec := protoBytes(nil, 1, []byte(f.ns))
	r = f.send(t, "POST", rules, pb, string(protoObject("authorization.k8s.io/v1", "SelfSubjectRulesReview", protoBytes(nil, 2, spec))))
	if r.code != 201 || !strings.Contains(string(r.body), `"incomplete":false`) {
		t.Errorf("SelfSubjectRulesReview as protobuf = %d %s, want 201", r.code, r.body)
	}
}
