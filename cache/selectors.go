// SPDX-License-Identifier: Apache-2.0

package cache

import "github.com/kubeloop/kubeloop/kube"

// Selectors are the label and field selectors of one namespace's list
// and watch ([InformerOptions.NamespaceSelectors]): empty ones select
// every object of the namespace.
type Selectors struct {
	Label kube.Selector
	Field kube.FieldSelector
}
