// SPDX-License-Identifier: Apache-2.0

package table

import (
	"slices"
	"strings"
	"time"
)

// This file is the Table of CustomResourceDefinitions themselves, as
// kube-apiserver 1.37 serves it (its own convertor, where 1.36 and older
// use the default one: name and creation time, [DefaultPrinter]): the
// scope, the served versions (the storage one marked), the creation time,
// and with -o wide the group, kind, short names and whether the CRD is
// established.

var crdPrinter = &Printer{Columns: []Column{nameCol,
	col("Scope", "string", "Cluster/Namespaced"),
	col("Versions", "string", "Served versions"),
	col("Created At", "date", descCreated),
	wide(col("Group", "string", "API group")),
	wide(col("Kind", "string", "CustomResource kind")),
	wide(col("ShortNames", "string", "Short names")),
	wide(col("Established", "boolean", "Established status")),
}, Cells: cellsCRD, NullRows: true}

// DefaultPrinter is the real server's default convertor (name and
// creation time), which kinds without a printer of their own get.
func DefaultPrinter() *Printer { return defaultPrinter }

func cellsCRD(o obj, now time.Time) ([]any, []RowCondition) {
	created, _ := cellsDefault(o, now)
	spec := atObj(o, "spec")
	var versions []string
	for _, v := range atList(spec, "versions") {
		if served, _ := v["served"].(bool); !served {
			continue
		}
		label := atStr(v, "name")
		if storage, _ := v["storage"].(bool); storage {
			label += "(storage)"
		}
		versions = append(versions, label)
	}
	slices.Sort(versions)
	established := false
	for _, c := range atList(o, "status", "conditions") {
		if atStr(c, "type") == "Established" && atStr(c, "status") == "True" {
			established = true
		}
	}
	return []any{created[0], atStr(spec, "scope"), strings.Join(versions, ","), created[1],
		atStr(spec, "group"), atStr(spec, "names", "kind"), strings.Join(atStrings(spec, "names", "shortNames"), ","),
		established}, nil
}
