// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/satoken"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/strategy"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file serves serviceaccounts/NAME/token (TokenRequest, kubectl
// create token) as kube-apiserver does, with package satoken: a
// POST answers 201 with a token of the service account, whatever dryRun
// says (the real server issues one too); other verbs are 405. The token
// authenticates as the service account (user
// system:serviceaccount:NS:NAME, its uid, groups system:serviceaccounts,
// system:serviceaccounts:NS and system:authenticated) until it expires
// or the service account is deleted or recreated, and TokenReviews
// accept it. Nothing is stored: the token carries its claims, signed
// with the server's key.

// isTokenRequest reports whether the call is to serviceaccounts/NAME/token.
func isTokenRequest(res *resource, info RequestInfo) bool {
	return res.Group == "" && res.Plural == "serviceaccounts" && info.Subresource == "token"
}

// serveTokenRequest answers a POST of a TokenRequest (satoken.Issue).
func (s *Server) serveTokenRequest(c *call) {
	body, _, _, serr := decodeRequestObject(c.r, nil)
	var answer obj
	if serr == nil {
		answer, serr = satoken.Issue(serviceAccounts{s}, body, c.info.Namespace, c.info.Name, s.tokenKey, c.manager, strategy.NewUID(), time.Now())
	}
	if serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	if s.facts.TokenRequestWithoutUID {
		delete(unstructured.Metadata(answer), "uid")
	}
	apierr.WriteJSON(c.w, http.StatusCreated, encode.Object(answer))
}

// serviceAccountUser returns the user a service account token
// authenticates (satoken.UserOf).
func (s *Server) serviceAccountUser(token string) (string, bool) {
	return satoken.UserOf(serviceAccounts{s}, s.tokenKey, token, time.Now())
}

// userUID is the uid of user: Options.UIDs', or a service account's.
func (s *Server) userUID(user string) string {
	return satoken.UID(serviceAccounts{s}, s.opts.UIDs, user)
}

// serviceAccounts are the stored service accounts (satoken.Accounts).
type serviceAccounts struct{ s *Server }

func (a serviceAccounts) Account(ns, name string) (sa satoken.Account, found bool) {
	a.s.withLock(func() {
		if rec := a.s.cols["/serviceaccounts"].objects[objectKey(ns, name)]; rec != nil {
			sa, found = satoken.Account{Namespace: rec.namespace, Name: rec.name, UID: rec.uid}, true
		}
	})
	return sa, found
}
