// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/satoken"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file serves serviceaccounts/NAME/token (TokenRequest, kubectl
// create token) as kube-apiserver 1.36.3 does, with package satoken: a
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

// serveTokenRequest answers a POST of a TokenRequest.
func (s *Server) serveTokenRequest(c *call) {
	body, _, _, serr := decodeRequestObject(c.r, nil)
	if serr == nil {
		serr = ensureNamespace(unstructured.Metadata(body), c.info.Namespace)
	}
	if serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	var sa satoken.Account
	var found bool
	s.withLock(func() {
		if rec := c.col.objects[c.key()]; rec != nil {
			sa, found = satoken.Account{Namespace: rec.namespace, Name: rec.name, UID: rec.uid}, true
		}
	})
	if !found {
		apierr.Write(c.w, apierr.NotFound(c.res.Group, c.res.Plural, c.info.Name))
		return
	}
	answer, claims, refused := satoken.Request(body, sa, time.Now(), c.manager, newUID())
	if refused != nil {
		apierr.Write(c.w, apierr.Invalid("authentication.k8s.io", "TokenRequest", refused.Name, refused.Errors))
		return
	}
	unstructured.Child(answer, "status", false)["token"] = satoken.Sign(s.tokenKey, claims)
	if s.facts.TokenRequestWithoutUID {
		delete(unstructured.Metadata(answer), "uid")
	}
	apierr.WriteJSON(c.w, http.StatusCreated, encodeObject(answer))
}

// serviceAccountUser returns the user a service account token
// authenticates: one this server signed, unexpired, of a service account
// that still exists with the uid it had.
func (s *Server) serviceAccountUser(token string) (string, bool) {
	c, ok := satoken.Verify(s.tokenKey, token, time.Now())
	if !ok {
		return "", false
	}
	var uid string
	s.withLock(func() {
		if rec := s.cols["/serviceaccounts"].objects[objectKey(c.Namespace, c.Name)]; rec != nil {
			uid = rec.uid
		}
	})
	if uid == "" || uid != c.UID {
		return "", false
	}
	return satoken.User(c.Namespace, c.Name), true
}

// userUID is the uid of user: Options.UIDs', or a service account's.
func (s *Server) userUID(user string) string {
	if uid, ok := s.opts.UIDs[user]; ok || !satoken.IsUser(user) {
		return uid
	}
	ns, name, _ := strings.Cut(strings.TrimPrefix(user, "system:serviceaccount:"), ":")
	var uid string
	s.withLock(func() {
		if rec := s.cols["/serviceaccounts"].objects[objectKey(ns, name)]; rec != nil {
			uid = rec.uid
		}
	})
	return uid
}

// bearerToken is the token of r's Authorization header, "" for none.
func bearerToken(r *http.Request) string {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(token)
}
