// SPDX-License-Identifier: Apache-2.0

package table

import (
	"slices"
	"strings"
	"time"
)

// This file holds the printers 1.33 has otherwise than the newest minor,
// as the real 1.33.13 answers.

// OldestPrinter returns 1.33's printer of a built-in group and resource
// ("/serviceaccounts") where it differs from BuiltinPrinter's, nil where
// it does not: a ServiceAccount's table counts its secrets, a
// Deployment's Selector column is described without "It must match the
// pod template's labels."
func OldestPrinter(key string) *Printer {
	switch key {
	case "/serviceaccounts":
		return &Printer{Columns: []Column{nameCol, col("Secrets", "string", descServiceAccountSecrets), ageCol},
			Cells: cellsServiceAccountSecrets}
	case "apps/deployments":
		p := *builtinPrinters[key]
		p.Columns = slices.Clone(p.Columns)
		for i, c := range p.Columns {
			if c.Name == "Selector" {
				p.Columns[i].Description = strings.TrimSuffix(c.Description, " It must match the pod template's labels.")
			}
		}
		return &p
	}
	return nil
}

const descServiceAccountSecrets = `Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. ` +
	`Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". ` +
	`The "kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. ` +
	`This field should not be used to find auto-generated service account token secrets for use outside of pods. ` +
	`Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. ` +
	`More info: https://kubernetes.io/docs/concepts/configuration/secret`

// cellsServiceAccountSecrets are a ServiceAccount's name, count of
// secrets and age.
func cellsServiceAccountSecrets(o obj, now time.Time) ([]any, []RowCondition) {
	name, age := nameAge(o, now)
	secrets, _ := at(o, "secrets").([]any)
	return []any{name, int64(len(secrets)), age}, nil
}
