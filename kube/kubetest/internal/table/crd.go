// SPDX-License-Identifier: Apache-2.0

package table

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/jsonpath"
)

// This file builds the printer of a custom resource from its CRD
// version's additionalPrinterColumns, as the real server does: a Name
// column, then one column per printer column (an Age column of type date
// on .metadata.creationTimestamp when there are none). A cell is the first
// value the column's JSONPath finds, converted to the column's type:
// integer and number cells are numbers, boolean cells booleans, date
// cells ages, string cells the value as text (objects and lists as
// compact JSON); a value that is missing or of another type gives an
// empty cell (null). A JSONPath that does not parse drops that column and
// those after it, as the real server does.

// CRDPrinter returns the printer of one version of a CRD, given the
// version's object in the CRD's spec.versions.
func CRDPrinter(version obj) *Printer {
	defs := atList(version, "additionalPrinterColumns")
	if len(defs) == 0 {
		defs = []obj{{"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp", "description": descCreated}}
	}
	p := &Printer{Columns: []Column{nameCol}}
	var paths []*jsonpath.Path
	for _, d := range defs {
		jp, err := jsonpath.Parse("{" + atStr(d, "jsonPath") + "}")
		if err != nil {
			break
		}
		desc := atStr(d, "description")
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + atStr(d, "jsonPath")
		}
		prio, _ := atInt(d, "priority")
		p.Columns = append(p.Columns, Column{Name: atStr(d, "name"), Type: atStr(d, "type"),
			Format: atStr(d, "format"), Description: desc, Priority: int32(prio)})
		paths = append(paths, jp)
	}
	types := make([]string, len(paths))
	for i := range paths {
		types[i] = p.Columns[i+1].Type
	}
	p.Cells = func(o obj, now time.Time) ([]any, []RowCondition) {
		cells := make([]any, 1, 1+len(paths))
		cells[0] = atStr(o, "metadata", "name")
		for i, jp := range paths {
			v, found := jp.First(o)
			if !found {
				cells = append(cells, nil)
				continue
			}
			cells = append(cells, columnCell(types[i], v, now))
		}
		return cells, nil
	}
	return p
}

// columnCell converts a value found by a printer column to its cell.
func columnCell(typ string, v any, now time.Time) any {
	if typ == "string" {
		return printValue(v)
	}
	switch typ {
	case "integer":
		switch x := v.(type) {
		case float64:
			return int64(x)
		case int64:
			return x
		}
	case "number":
		switch x := v.(type) {
		case float64:
			return x
		case int64:
			return float64(x)
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
	case "date":
		s, ok := v.(string)
		if !ok {
			return nil
		}
		if s == "" || s == "null" {
			return "<unknown>"
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return "<invalid>"
		}
		return humanDuration(now.Sub(t))
	}
	return nil
}

// printValue renders a value as kubectl's JSONPath prints it: strings as
// they are, numbers and booleans in Go's notation (whole numbers without
// a fraction, as the real server holds them as integers), objects and
// lists as compact JSON, null as "<no value>".
func printValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "<no value>"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case byte:
		return strconv.Itoa(int(x))
	case float64:
		if n, ok := jsonpath.Integer(x); ok {
			return strconv.FormatInt(n, 10)
		}
		return fmt.Sprint(x)
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// ValidatePrinterColumns checks the additionalPrinterColumns of a CRD's
// versions as the real server does: a name, a type among the printable
// ones, a known format, and a JSONPath starting with a dot (anything
// after it is accepted, even what does not parse). Columns that are the
// same in every version are reported at spec.additionalPrinterColumns,
// where the real server's internal form keeps them.
func ValidatePrinterColumns(o obj) []fielderr.Error {
	versions := atList(o, "spec", "versions")
	if len(versions) == 0 {
		return nil
	}
	shared := true
	first, _ := json.Marshal(versions[0]["additionalPrinterColumns"])
	for _, v := range versions[1:] {
		if b, _ := json.Marshal(v["additionalPrinterColumns"]); string(b) != string(first) {
			shared = false
		}
	}
	var errs []fielderr.Error
	for i, v := range versions {
		base := fmt.Sprintf("spec.versions[%d].additionalPrinterColumns", i)
		if shared {
			if i > 0 {
				break
			}
			base = "spec.additionalPrinterColumns"
		}
		for j, c := range atList(v, "additionalPrinterColumns") {
			errs = append(errs, validatePrinterColumn(c, fmt.Sprintf("%s[%d]", base, j))...)
		}
	}
	return errs
}

const (
	printerTypes   = "boolean,date,integer,number,string"
	printerFormats = "byte,date,date-time,double,float,int32,int64,password"
)

func validatePrinterColumn(c obj, path string) []fielderr.Error {
	var errs []fielderr.Error
	if atStr(c, "name") == "" {
		errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: path + ".name"})
	}
	switch typ := atStr(c, "type"); {
	case typ == "":
		errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: path + ".type", Detail: "must be one of " + printerTypes})
	case !slices.Contains(strings.Split(printerTypes, ","), typ):
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: path + ".type", Value: typ, Detail: "must be one of " + printerTypes})
	}
	if f := atStr(c, "format"); f != "" && !slices.Contains(strings.Split(printerFormats, ","), f) {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: path + ".format", Value: f, Detail: "must be one of " + printerFormats})
	}
	switch p := atStr(c, "jsonPath"); {
	case p == "":
		errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: path + ".JSONPath"})
	case p[0] != '.':
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: path + ".JSONPath", Value: p, Detail: "must be a simple json path starting with ."})
	}
	return errs
}
