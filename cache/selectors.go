// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"fmt"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
)

// Selectors are the label and field selectors of one namespace's list
// and watch ([InformerOptions.NamespaceSelectors]): empty ones select
// every object of the namespace.
type Selectors struct {
	Label kube.Selector
	Field kube.FieldSelector
}

// checkNamespaceSelectors checks that every namespace sels names is one
// of namespaces.
func checkNamespaceSelectors(sels map[string]Selectors, namespaces []string) error {
	for ns := range sels {
		if !slices.Contains(namespaces, ns) {
			return fmt.Errorf("NamespaceSelectors names namespace %q, which is not in Namespaces", ns)
		}
	}
	return nil
}
