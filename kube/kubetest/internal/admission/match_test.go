// SPDX-License-Identifier: Apache-2.0

package admission

import "testing"

func TestMatches(t *testing.T) {
	cm := func(labels map[string]any) obj { return obj{"metadata": obj{"labels": labels}} }
	base := func() *Request {
		return &Request{Operation: "UPDATE", Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true,
			Namespace: "a", NamespaceLabels: map[string]string{"env": "prod"}, Object: cm(obj{"app": "web"})}
	}
	rule := func(resources ...string) []Rule {
		return []Rule{{Operations: []string{"UPDATE"}, APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: resources, Scope: "*"}}
	}
	for _, tc := range []struct {
		name string
		hook Webhook
		req  func(*Request)
		want bool
	}{
		{"resource", Webhook{Rules: rule("pods")}, nil, true},
		{"other resource", Webhook{Rules: rule("configmaps")}, nil, false},
		{"star is no subresource", Webhook{Rules: rule("*")}, func(r *Request) { r.Subresource = "status" }, false},
		{"star star", Webhook{Rules: rule("*/*")}, func(r *Request) { r.Subresource = "status" }, true},
		{"pods star", Webhook{Rules: rule("pods/*")}, func(r *Request) { r.Subresource = "status" }, true},
		{"star status", Webhook{Rules: rule("*/status")}, func(r *Request) { r.Subresource = "status" }, true},
		{"pods is not pods/status", Webhook{Rules: rule("pods")}, func(r *Request) { r.Subresource = "status" }, false},
		{"operation", Webhook{Rules: rule("pods")}, func(r *Request) { r.Operation = "CREATE" }, false},
		{"exact version", Webhook{Rules: rule("pods"), MatchPolicy: "Exact"}, func(r *Request) { r.Version = "v2" }, false},
		{"equivalent version", Webhook{Rules: rule("pods"), MatchPolicy: "Equivalent"}, func(r *Request) { r.Version = "v2" }, true},
		{"cluster scope", Webhook{Rules: []Rule{{Operations: []string{"*"}, APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}, Scope: "Cluster"}}}, nil, false},
		{"namespace selector", Webhook{Rules: rule("pods"), NamespaceSelector: obj{"matchLabels": obj{"env": "prod"}}}, nil, true},
		{"namespace selector misses", Webhook{Rules: rule("pods"), NamespaceSelector: obj{"matchExpressions": []any{obj{"key": "env", "operator": "NotIn", "values": []any{"prod"}}}}}, nil, false},
		{"object selector on old object", Webhook{Rules: rule("pods"), ObjectSelector: obj{"matchLabels": obj{"app": "db"}}},
			func(r *Request) { r.OldObject = cm(obj{"app": "db"}) }, true},
		{"object selector misses both", Webhook{Rules: rule("pods"), ObjectSelector: obj{"matchExpressions": []any{obj{"key": "tier", "operator": "Exists"}}}}, nil, false},
		{"unknown operator matches nothing", Webhook{Rules: rule("pods"), ObjectSelector: obj{"matchExpressions": []any{obj{"key": "app", "operator": "Gt"}}}}, nil, false},
	} {
		req := base()
		if tc.req != nil {
			tc.req(req)
		}
		if got := tc.hook.Matches(req); got != tc.want {
			t.Errorf("%s: Matches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestParseDefaults(t *testing.T) {
	hooks := Parse(obj{"metadata": obj{"name": "c"}, "webhooks": []any{obj{"name": "w", "sideEffects": "None",
		"clientConfig": obj{"service": obj{"namespace": "ns", "name": "svc"}}, "rules": []any{obj{}}}}}, true)
	if len(hooks) != 1 {
		t.Fatalf("Parse = %d webhooks, want 1", len(hooks))
	}
	w := hooks[0]
	if w.FailurePolicy != "Fail" || w.MatchPolicy != "Equivalent" || w.Timeout.Seconds() != 10 || w.Reinvoke ||
		w.Service == nil || w.Service.Port != 443 || w.Rules[0].Scope != "*" {
		t.Errorf("Parse = %+v, want v1's defaults (Fail, Equivalent, 10s, Never, port 443, scope *)", w)
	}
}
