// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// testTokenRequest asks a service account's token (POST
// serviceaccounts/NAME/token, kubectl create token): the answer is the
// TokenRequest with its defaults, the token and its expiry; the token
// authenticates as the service account (SelfSubjectReview, TokenReview);
// and what the real server refuses is refused with its messages.
func testTokenRequest(t *testing.T, f *fixture) {
	sas := "/api/v1/namespaces/" + f.ns + "/serviceaccounts"
	f.post(t, sas, `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"robot"}}`)
	var sa struct{ Metadata struct{ UID string } }
	json.Unmarshal(f.send(t, "GET", sas+"/robot", "", "").body, &sa)
	path := sas + "/robot/token"

	r := f.send(t, "POST", path, "application/json", `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}`)
	if r.code != 201 {
		t.Fatalf("token request = %d %s, want 201", r.code, r.body)
	}
	var tr struct {
		Kind     string
		Metadata struct{ Name, Namespace, UID string }
		Spec     struct {
			Audiences         []string
			ExpirationSeconds int64
		}
		Status struct {
			Token               string
			ExpirationTimestamp time.Time
		}
	}
	if err := json.Unmarshal(r.body, &tr); err != nil {
		t.Fatal(err)
	}
	// 1.33 answers without the account's uid.
	wantUID := sa.Metadata.UID
	if f.minor(t) <= minorOldest {
		wantUID = ""
	}
	if tr.Kind != "TokenRequest" || tr.Metadata.Name != "robot" || tr.Metadata.Namespace != f.ns || tr.Metadata.UID != wantUID ||
		!slices.Equal(tr.Spec.Audiences, []string{"https://kubernetes.default.svc"}) || tr.Spec.ExpirationSeconds != 3600 || tr.Status.Token == "" {
		t.Errorf("token request answered %s, want the service account's TokenRequest with the default audience and a token", r.body)
	}
	if d := time.Until(tr.Status.ExpirationTimestamp); d < 58*time.Minute || d > 61*time.Minute {
		t.Errorf("expirationTimestamp %v is %v away, want an hour", tr.Status.ExpirationTimestamp, d)
	}

	user := "system:serviceaccount:" + f.ns + ":robot"
	cfg := *f.env.Config
	cfg.BearerToken, cfg.BearerTokenFile = tr.Status.Token, ""
	who := f.sendAs(t, &cfg, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "application/json",
		`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
	var review struct {
		Status struct {
			UserInfo struct {
				Username, UID string
				Groups        []string
			}
		}
	}
	json.Unmarshal(who.body, &review)
	if u := review.Status.UserInfo; who.code != 201 || u.Username != user || u.UID != sa.Metadata.UID ||
		!slices.Equal(u.Groups, []string{"system:serviceaccounts", "system:serviceaccounts:" + f.ns, "system:authenticated"}) {
		t.Errorf("whoami with the token = %d %s, want %s with the service account's uid and groups", who.code, who.body, user)
	}
	tokenReview := f.send(t, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", "application/json",
		`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"`+tr.Status.Token+`"}}`)
	var tv struct {
		Status struct {
			Authenticated bool
			User          struct{ Username string }
		}
	}
	json.Unmarshal(tokenReview.body, &tv)
	if !tv.Status.Authenticated || tv.Status.User.Username != user {
		t.Errorf("TokenReview of the token = %d %s, want it authenticated as %s", tokenReview.code, tokenReview.body, user)
	}

	const short = `Invalid value: 10: may not specify a duration less than 10 minutes`
	expectInvalid(t, "a token of 10 s", f.send(t, "POST", path, "application/json", `{"spec":{"expirationSeconds":10}}`),
		`TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: `+short,
		statusCause{Reason: "FieldValueInvalid", Message: short, Field: "spec.expirationSeconds"})
	const other = `Invalid value: "other": must match the service account name if specified`
	expectInvalid(t, "a TokenRequest of another name", f.send(t, "POST", path, "application/json", `{"metadata":{"name":"other"}}`),
		`TokenRequest.authentication.k8s.io "robot" is invalid: metadata.name: `+other,
		statusCause{Reason: "FieldValueInvalid", Message: other, Field: "metadata.name"})
	expectStatus(t, "a token of a missing service account", f.send(t, "POST", sas+"/nobody/token", "application/json", `{}`),
		404, "NotFound", `serviceaccounts "nobody" not found`)
	expectStatus(t, "GET token", f.send(t, "GET", path, "", ""), 405, "MethodNotAllowed",
		"the server does not allow this method on the requested resource")
}
