// SPDX-License-Identifier: Apache-2.0

package authz

// Rules is the status of a SelfSubjectRulesReview by user: the rules
// of the real server's system:basic-user and system:public-info-viewer
// and system:discovery roles, and "*" when nothing is denied to user.
func (d *Denials) Rules(user string) map[string]any {
	strs := func(v ...string) []any {
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out
	}
	resourceRules := []any{
		map[string]any{"verbs": strs("create"), "apiGroups": strs("authorization.k8s.io"),
			"resources": strs("selfsubjectaccessreviews", "selfsubjectrulesreviews")},
		map[string]any{"verbs": strs("create"), "apiGroups": strs("authentication.k8s.io"), "resources": strs("selfsubjectreviews")},
	}
	nonResourceRules := []any{
		map[string]any{"verbs": strs("get"), "nonResourceURLs": strs("/api", "/api/*", "/apis", "/apis/*", "/healthz",
			"/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/")},
		map[string]any{"verbs": strs("get"), "nonResourceURLs": strs("/healthz", "/livez", "/readyz", "/version", "/version/")},
	}
	denied, all := d.DeniedTo(user)
	if !denied {
		resourceRules = append(resourceRules, map[string]any{"verbs": strs("*"), "apiGroups": strs("*"), "resources": strs("*")})
		nonResourceRules = append(nonResourceRules, map[string]any{"verbs": strs("*"), "nonResourceURLs": strs("*")})
	}
	return map[string]any{"resourceRules": resourceRules, "nonResourceRules": nonResourceRules, "incomplete": denied && !all}
}
