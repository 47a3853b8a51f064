// SPDX-License-Identifier: Apache-2.0

package patch

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/internal/yaml"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// ParseApply reads an apply configuration: JSON, or YAML with plain
// scalars typed as YAML types them (true, 3, 1.5, null).
func ParseApply(body []byte) (obj, error) {
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '{' {
		o, err := unstructured.DecodeObjectOrNull(body)
		if err == nil && o == nil {
			err = fmt.Errorf("the body is not a JSON object")
		}
		return o, err
	}
	n, err := yaml.ParseNode(body)
	if err != nil {
		return nil, err
	}
	o, ok := yamlValue(n).(obj)
	if !ok {
		return nil, fmt.Errorf("the configuration is not a mapping")
	}
	return o, nil
}

func yamlValue(n *yaml.Node) any {
	switch n.Kind {
	case yaml.Mapping:
		m := make(obj, len(n.Entries))
		for _, e := range n.Entries {
			m[e.Key] = yamlValue(e.Value)
		}
		return m
	case yaml.Sequence:
		s := make([]any, len(n.Items))
		for i, it := range n.Items {
			s[i] = yamlValue(it)
		}
		return s
	case yaml.Scalar:
		if n.Quoted {
			return n.Text
		}
		switch n.Text {
		case "true", "True", "TRUE":
			return true
		case "false", "False", "FALSE":
			return false
		case "null", "Null", "NULL", "~", "":
			return nil
		}
		// A number as YAML writes one: not "inf", "nan" or "infinity",
		// which strconv reads as floats JSON cannot hold and YAML reads
		// as strings, nor hexadecimal or with underscores.
		if f, err := strconv.ParseFloat(n.Text, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) &&
			!strings.ContainsAny(n.Text, "xXpP_") {
			if i, err := strconv.ParseInt(strings.TrimPrefix(n.Text, "+"), 10, 64); err == nil {
				return i // an integer, exactly
			}
			return f
		}
		return n.Text
	}
	return nil
}
