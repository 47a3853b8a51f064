// SPDX-License-Identifier: Apache-2.0

package admission

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"slices"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

type obj = map[string]any

// Webhook is one webhook of a Validating- or MutatingWebhookConfiguration,
// with the defaults of admissionregistration.k8s.io/v1 filled in.
type Webhook struct {
	// Name is the webhook's name; Configuration the name of the
	// configuration that holds it.
	Name, Configuration string
	// Mutating says it comes from a MutatingWebhookConfiguration.
	Mutating bool
	// URL is clientConfig.url; empty when Service is set.
	URL string
	// Service is clientConfig.service, nil when URL is set.
	Service *Service
	// CABundle is the decoded clientConfig.caBundle: the roots the
	// webhook's certificate is checked against (the system's when empty).
	CABundle []byte
	Rules    []Rule
	// FailurePolicy is Fail or Ignore; MatchPolicy Exact or Equivalent.
	FailurePolicy, MatchPolicy string
	NamespaceSelector          obj // a LabelSelector; empty matches all
	ObjectSelector             obj
	SideEffects                string
	// Timeout is timeoutSeconds (10 s when unset).
	Timeout time.Duration
	// ReviewVersions is admissionReviewVersions, in the configuration's
	// order of preference.
	ReviewVersions []string
	// Reinvoke says reinvocationPolicy IfNeeded.
	Reinvoke bool
}

// Service is a webhook's clientConfig.service.
type Service struct {
	Namespace, Name, Path string
	Port                  int32
}

// Rule is one of a webhook's rules.
type Rule struct {
	Operations, APIGroups, APIVersions, Resources []string
	// Scope is "*", "Cluster" or "Namespaced".
	Scope string
}

// Parse reads the webhooks of configuration o (a ValidatingWebhookConfiguration
// when mutating is false). It reads what [Check] admitted and never fails:
// a field of the wrong type reads as unset.
func Parse(o obj, mutating bool) []Webhook {
	name := unstructured.String(unstructured.Metadata(o), "name")
	items, _ := o["webhooks"].([]any)
	hooks := make([]Webhook, 0, len(items))
	for _, it := range items {
		m, _ := it.(obj)
		if m == nil {
			continue
		}
		hooks = append(hooks, parseWebhook(name, mutating, m))
	}
	return hooks
}

func parseWebhook(config string, mutating bool, m obj) Webhook {
	w := Webhook{Name: unstructured.String(m, "name"), Configuration: config, Mutating: mutating,
		FailurePolicy:  cmp.Or(unstructured.String(m, "failurePolicy"), "Fail"),
		MatchPolicy:    cmp.Or(unstructured.String(m, "matchPolicy"), "Equivalent"),
		SideEffects:    unstructured.String(m, "sideEffects"),
		Timeout:        10 * time.Second,
		Reinvoke:       unstructured.String(m, "reinvocationPolicy") == "IfNeeded",
		ReviewVersions: stringList(m["admissionReviewVersions"]),
	}
	w.NamespaceSelector, _ = m["namespaceSelector"].(obj)
	w.ObjectSelector, _ = m["objectSelector"].(obj)
	if t, ok := unstructured.IntegerValue(m["timeoutSeconds"]); ok && t > 0 {
		w.Timeout = time.Duration(t) * time.Second
	}
	cc, _ := m["clientConfig"].(obj)
	w.ReadClientConfig(cc)
	rules, _ := m["rules"].([]any)
	for _, r := range rules {
		rm, _ := r.(obj)
		w.Rules = append(w.Rules, Rule{Operations: stringList(rm["operations"]), APIGroups: stringList(rm["apiGroups"]),
			APIVersions: stringList(rm["apiVersions"]), Resources: stringList(rm["resources"]),
			Scope: cmp.Or(unstructured.String(rm, "scope"), "*")})
	}
	return w
}

// ReadClientConfig sets w's URL, Service and CABundle from cc, a
// WebhookClientConfig (service port 443 when unset). A field of the wrong
// type reads as unset.
func (w *Webhook) ReadClientConfig(cc obj) {
	w.URL = unstructured.String(cc, "url")
	if ca := unstructured.String(cc, "caBundle"); ca != "" {
		w.CABundle, _ = base64.StdEncoding.DecodeString(ca)
	}
	if svc, ok := cc["service"].(obj); ok {
		port := int32(443)
		if p, ok := unstructured.IntegerValue(svc["port"]); ok {
			port = int32(p)
		}
		w.Service = &Service{Namespace: unstructured.String(svc, "namespace"), Name: unstructured.String(svc, "name"),
			Path: unstructured.String(svc, "path"), Port: port}
	}
}

// Sort puts hooks in the order the real server calls them: by the name of
// their configuration, then in their order within it.
func Sort(hooks []Webhook) {
	slices.SortStableFunc(hooks, func(a, b Webhook) int { return cmp.Compare(a.Configuration, b.Configuration) })
}

// Check refuses a configuration that kubetest could not honour, rather
// than store it and call its webhooks otherwise than the real server
// would: matchConditions (CEL), which kubetest cannot evaluate; and a
// sideEffects value that v1 does not accept, with the real server's
// errors.
func Check(o obj) []fielderr.Error {
	var errs []fielderr.Error
	items, _ := o["webhooks"].([]any)
	for i, it := range items {
		m, _ := it.(obj)
		at := fmt.Sprintf("webhooks[%d].", i)
		if conds, _ := m["matchConditions"].([]any); len(conds) > 0 {
			errs = append(errs, fielderr.Error{Type: "FieldValueForbidden", Field: at + "matchConditions",
				Detail: "kubetest cannot evaluate CEL match conditions: test this webhook on a real kube-apiserver"})
		}
		switch se, ok := m["sideEffects"].(string); {
		case !ok || se == "":
			errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: at + "sideEffects",
				Detail: "must specify one of None, NoneOnDryRun"})
		case se != "None" && se != "NoneOnDryRun":
			errs = append(errs, fielderr.Error{Type: "FieldValueNotSupported", Field: at + "sideEffects", Value: se,
				Detail: fielderr.NotSupportedDetail("None", "NoneOnDryRun")})
		}
	}
	return errs
}

// stringList reads a list of strings.
func stringList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Configured returns the webhooks of the stored Mutating- and
// ValidatingWebhookConfigurations (decoded, in the order stored): the
// mutating ones, then the validating ones, each kind in the order the
// real server calls them ([Sort]).
func Configured(mutating, validating []map[string]any) []Webhook {
	var hooks []Webhook
	for _, kind := range []struct {
		configs  []map[string]any
		mutating bool
	}{{mutating, true}, {validating, false}} {
		var some []Webhook
		for _, c := range kind.configs {
			some = append(some, Parse(c, kind.mutating)...)
		}
		Sort(some)
		hooks = append(hooks, some...)
	}
	return hooks
}
