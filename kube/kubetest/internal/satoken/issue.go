// SPDX-License-Identifier: Apache-2.0

package satoken

import (
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/strategy"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// Accounts finds the service accounts the server stores. Account takes
// the server's lock itself.
type Accounts interface {
	// Account returns the service account ns/name; false when there is
	// none.
	Account(ns, name string) (Account, bool)
}

// Issue answers the TokenRequest body POSTed to the service account
// ns/name at now, with a token signed with key: the answer of [Request]
// with status.token set. manager is the field manager; id is the token's
// unique id. A body of another namespace is a 400, a missing service
// account a 404, what Request refuses a 422.
func Issue(accounts Accounts, body map[string]any, ns, name string, key []byte, manager, id string, now time.Time) (map[string]any, *kube.StatusError) {
	if !strategy.EnsureNamespace(unstructured.Metadata(body), ns) {
		return nil, apierr.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	sa, found := accounts.Account(ns, name)
	if !found {
		return nil, apierr.NotFound("", "serviceaccounts", name)
	}
	answer, claims, refused := Request(body, sa, now, manager, id)
	if refused != nil {
		return nil, apierr.Invalid("authentication.k8s.io", "TokenRequest", refused.Name, refused.Errors)
	}
	unstructured.Child(answer, "status", false)["token"] = Sign(key, claims)
	return answer, nil
}

// UserOf returns the user token authenticates at now: one signed with
// key, unexpired, of a service account that still exists with the uid it
// had.
func UserOf(accounts Accounts, key []byte, token string, now time.Time) (string, bool) {
	c, ok := Verify(key, token, now)
	if !ok {
		return "", false
	}
	if sa, found := accounts.Account(c.Namespace, c.Name); !found || sa.UID == "" || sa.UID != c.UID {
		return "", false
	}
	return User(c.Namespace, c.Name), true
}

// UID is the uid of user: uids' (the token file's), or a service
// account's; "" for none.
func UID(accounts Accounts, uids map[string]string, user string) string {
	if uid, ok := uids[user]; ok || !IsUser(user) {
		return uid
	}
	ns, name, _ := strings.Cut(strings.TrimPrefix(user, "system:serviceaccount:"), ":")
	sa, _ := accounts.Account(ns, name)
	return sa.UID
}
