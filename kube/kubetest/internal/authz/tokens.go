// SPDX-License-Identifier: Apache-2.0

package authz

import (
	"fmt"
	"slices"
	"strings"
)

// Authenticate returns the user a request is made by, from its
// Authorization header and the configured tokens (token to user name).
// Without tokens everyone is "admin". With tokens, a request without one
// is anonymous and may only read a public path (public, as anonymous
// requests may by default); a wrong token is always refused (ok false).
func Authenticate(tokens map[string]string, authorization string, public bool) (user string, ok bool) {
	if len(tokens) == 0 {
		return "admin", true
	}
	if authorization == "" {
		if public {
			return "system:anonymous", true
		}
		return "", false
	}
	token, bearer := strings.CutPrefix(authorization, "Bearer ")
	user, found := tokens[strings.TrimSpace(token)]
	if !bearer || !found {
		return "", false
	}
	return user, true
}

// TokenFor returns a token of user, the lexically first if there are
// several, or "" when none is configured.
func TokenFor(tokens map[string]string, user string) string {
	var ts []string
	for t, u := range tokens {
		if u == user {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return ""
	}
	slices.Sort(ts)
	return ts[0]
}

// DefaultToken is the token a client of the server uses by default: one
// of user "admin", or the lexically first token, or "" when there is none.
func DefaultToken(tokens map[string]string) string {
	if t := TokenFor(tokens, "admin"); t != "" {
		return t
	}
	var ts []string
	for t := range tokens {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	if len(ts) == 0 {
		return ""
	}
	return ts[0]
}

// ForbiddenMessage is the real server's reason for refusing user verb on
// resource (with its subresource, "deployments/status") of group, in
// namespace ("" at the cluster scope).
func ForbiddenMessage(user, verb, resource, group, namespace string) string {
	if namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q",
			user, verb, resource, group, namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope",
		user, verb, resource, group)
}
