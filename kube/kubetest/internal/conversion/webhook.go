// SPDX-License-Identifier: Apache-2.0

package conversion

import (
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/admission"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

type obj = map[string]any

// Timeout bounds one call of a conversion webhook, retries included: the
// real server's webhook client asks its answer within 30 s.
const Timeout = 30 * time.Second

// Webhook is the conversion webhook of a CustomResourceDefinition
// (spec.conversion with strategy Webhook). It is immutable once parsed.
type Webhook struct {
	// CRD is the name of the CustomResourceDefinition.
	CRD string
	// Group, Plural and Kind are those of the CRD's objects.
	Group, Plural, Kind string
	// Client is where the webhook is reached (URL or Service, CABundle)
	// and its Timeout; its admission fields are unused.
	Client admission.Webhook
	// ReviewVersions is conversionReviewVersions, in the CRD's order of
	// preference.
	ReviewVersions []string
	// Resolve finds the address of Client.Service (nil: a service
	// cannot be reached).
	Resolve admission.Resolver
	// Minor is the Kubernetes minor whose errors are answered (see
	// [Webhook.Read]).
	Minor int
}

// Parse reads the conversion webhook of the CRD o, nil when its
// conversion strategy is not Webhook. A field of the wrong type reads as
// unset (the CRD was validated when it was written).
func Parse(o obj, resolve admission.Resolver, minor int) *Webhook {
	spec, _ := o["spec"].(obj)
	conv, _ := spec["conversion"].(obj)
	if unstructured.String(conv, "strategy") != "Webhook" {
		return nil
	}
	names, _ := spec["names"].(obj)
	hook, _ := conv["webhook"].(obj)
	w := &Webhook{CRD: unstructured.String(unstructured.Metadata(o), "name"), Group: unstructured.String(spec, "group"),
		Plural: unstructured.String(names, "plural"), Kind: unstructured.String(names, "kind"),
		Client: admission.Webhook{Timeout: Timeout}, Resolve: resolve, Minor: minor}
	cc, _ := hook["clientConfig"].(obj)
	w.Client.ReadClientConfig(cc)
	versions, _ := hook["conversionReviewVersions"].([]any)
	for _, v := range versions {
		if s, ok := v.(string); ok {
			w.ReviewVersions = append(w.ReviewVersions, s)
		}
	}
	return w
}

// reviewVersion is the ConversionReview version the webhook is sent: the
// first of its conversionReviewVersions kubetest speaks (v1, v1beta1).
func (w *Webhook) reviewVersion() (string, bool) {
	for _, v := range w.ReviewVersions {
		if v == "v1" || v == "v1beta1" {
			return v, true
		}
	}
	return "", false
}
