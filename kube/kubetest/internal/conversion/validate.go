// SPDX-License-Identifier: Apache-2.0

package conversion

import (
	"fmt"
	"net/url"
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// Validate returns what the real server refuses in the spec.conversion
// of the CRD o, with its field paths, which name the fields of the
// internal version (spec.conversion.webhookClientConfig for
// spec.conversion.webhook.clientConfig): a strategy other than None and
// Webhook; for Webhook a clientConfig with exactly one of url (https,
// without user, query or fragment) and service (with namespace and
// name), and conversionReviewVersions naming v1 or v1beta1, without
// duplicates; for None neither.
func Validate(o obj) []fielderr.Error {
	spec, _ := o["spec"].(obj)
	conv, _ := spec["conversion"].(obj)
	if conv == nil {
		return nil
	}
	hook, _ := conv["webhook"].(obj)
	cc, hasConfig := hook["clientConfig"].(obj)
	versions, _ := hook["conversionReviewVersions"].([]any)
	const at = "spec.conversion."
	switch strategy := unstructured.String(conv, "strategy"); strategy {
	case "Webhook":
		var errs []fielderr.Error
		if !hasConfig {
			errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: at + "webhookClientConfig", Detail: "required when strategy is set to Webhook"})
		} else {
			errs = append(errs, validateClientConfig(cc)...)
		}
		return append(errs, validateReviewVersions(versions)...)
	case "None", "":
		var errs []fielderr.Error
		if hasConfig {
			errs = append(errs, fielderr.Error{Type: "FieldValueForbidden", Field: at + "webhookClientConfig", Detail: "should not be set when strategy is not set to Webhook"})
		}
		if len(versions) > 0 {
			errs = append(errs, fielderr.Error{Type: "FieldValueForbidden", Field: at + "conversionReviewVersions", Detail: "should not be set when strategy is not set to Webhook"})
		}
		return errs
	default:
		return []fielderr.Error{{Type: "FieldValueNotSupported", Field: at + "strategy", Value: strategy,
			Detail: fielderr.NotSupportedDetail("None", "Webhook")}}
	}
}

// validateClientConfig checks a conversion webhook's clientConfig.
func validateClientConfig(cc obj) []fielderr.Error {
	const at = "spec.conversion.webhookClientConfig"
	rawURL, hasURL := cc["url"].(string)
	svc, hasService := cc["service"].(obj)
	switch {
	case hasURL == hasService:
		return []fielderr.Error{{Type: "FieldValueRequired", Field: at, Detail: "exactly one of url or service is required"}}
	case hasURL:
		return validateURL(at+".url", rawURL)
	}
	var errs []fielderr.Error
	for _, k := range []string{"name", "namespace"} {
		if unstructured.String(svc, k) == "" {
			errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: at + ".service." + k})
		}
	}
	return errs
}

// validateURL checks a webhook's url as the real server does.
func validateURL(field, raw string) []fielderr.Error {
	u, err := url.Parse(raw)
	if err != nil {
		return []fielderr.Error{{Type: "FieldValueRequired", Field: field, Detail: "url must be a valid URL: " + err.Error() + "; desired format: https://host[/path]"}}
	}
	var errs []fielderr.Error
	invalid := func(v, detail string) {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: field, Value: v, Detail: detail})
	}
	if u.Scheme != "https" {
		invalid(u.Scheme, "'https' is the only allowed URL scheme; desired format: https://host[/path]")
	}
	if u.Host == "" {
		invalid(u.Host, "host must be specified; desired format: https://host[/path]")
	}
	if u.User != nil {
		invalid(u.User.String(), "user information is not permitted in the URL")
	}
	if u.Fragment != "" {
		invalid(u.Fragment, "fragments are not permitted in the URL")
	}
	if u.RawQuery != "" {
		invalid(u.RawQuery, "query parameters are not permitted in the URL")
	}
	return errs
}

// validateReviewVersions checks conversionReviewVersions: present, one
// of them known, none twice.
func validateReviewVersions(versions []any) []fielderr.Error {
	const at = "spec.conversion.conversionReviewVersions"
	if len(versions) == 0 {
		return []fielderr.Error{{Type: "FieldValueRequired", Field: at}}
	}
	var errs []fielderr.Error
	var seen []string
	known := false
	for i, v := range versions {
		s, _ := v.(string)
		if slices.Contains(seen, s) {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: fmt.Sprintf("%s[%d]", at, i), Value: s, Detail: "duplicate version"})
		}
		seen = append(seen, s)
		known = known || s == "v1" || s == "v1beta1"
	}
	if !known {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: at, Value: seen, Detail: "must include at least one of v1, v1beta1"})
	}
	return errs
}
