// SPDX-License-Identifier: Apache-2.0

package metricstest

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/internal/metrics"
)

// This file reads a sample line's parts: name, labels, value, and the
// escapes of help text.

// splitSample parses `name{l="v",...} value`.
func splitSample(line string) (string, []metrics.Label, float64, error) {
	i := 0
	for i < len(line) && line[i] != '{' && line[i] != ' ' {
		i++
	}
	name := line[:i]
	if !metrics.ValidMetricName(name) {
		return "", nil, 0, fmt.Errorf("invalid metric name %q", name)
	}
	var labels []metrics.Label
	if i < len(line) && line[i] == '{' {
		i++
		for i < len(line) && line[i] != '}' {
			j := strings.IndexByte(line[i:], '=')
			if j < 0 {
				return "", nil, 0, errors.New("label without '='")
			}
			ln := line[i : i+j]
			if !metrics.ValidLabelName(ln) && ln != "le" {
				return "", nil, 0, fmt.Errorf("invalid label name %q", ln)
			}
			i += j + 1
			if i >= len(line) || line[i] != '"' {
				return "", nil, 0, errors.New("label value not quoted")
			}
			i++
			var b strings.Builder
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' {
					if i+1 >= len(line) {
						return "", nil, 0, errors.New("unterminated escape")
					}
					i++
					switch line[i] {
					case '\\', '"':
						b.WriteByte(line[i])
					case 'n':
						b.WriteByte('\n')
					default:
						return "", nil, 0, fmt.Errorf("unknown escape \\%c", line[i])
					}
					continue
				}
				b.WriteByte(line[i])
			}
			if i >= len(line) {
				return "", nil, 0, errors.New("unterminated label value")
			}
			i++ // closing quote
			labels = append(labels, metrics.Label{Name: ln, Value: b.String()})
			if i < len(line) && line[i] == ',' {
				i++
			} else if i < len(line) && line[i] != '}' {
				return "", nil, 0, errors.New("labels not separated by ','")
			}
		}
		if i >= len(line) {
			return "", nil, 0, errors.New("unterminated label set")
		}
		i++ // '}'
	}
	if i >= len(line) || line[i] != ' ' {
		return "", nil, 0, errors.New("no space before the value")
	}
	v, err := parseFloat(line[i+1:])
	if err != nil {
		return "", nil, 0, err
	}
	slices.SortFunc(labels, func(a, b metrics.Label) int { return cmp.Compare(a.Name, b.Name) })
	for k := 1; k < len(labels); k++ {
		if labels[k].Name == labels[k-1].Name {
			return "", nil, 0, fmt.Errorf("label %q given twice", labels[k].Name)
		}
	}
	return name, labels, v, nil
}

// isCount reports whether v is a count of observations: a whole number
// that a uint64 holds.
func isCount(v float64) bool {
	return v == math.Trunc(v) && v >= 0 && v < 1<<64
}

// parseFloat parses a sample value: a Go float, "+Inf", "-Inf" or "NaN".
// A timestamp after the value is refused.
func parseFloat(s string) (float64, error) {
	switch s {
	case "+Inf":
		return math.Inf(+1), nil
	case "-Inf":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	if strings.ContainsAny(s, " \t") {
		return 0, fmt.Errorf("value %q: timestamps are not written here", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || strings.EqualFold(s, "inf") || strings.EqualFold(s, "+inf") || strings.EqualFold(s, "nan") {
		return 0, fmt.Errorf("invalid value %q", s)
	}
	return v, nil
}

// unescapeHelp undoes the escapes of help text: \\ and \n.
func unescapeHelp(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch {
		case i >= len(s):
			return "", errors.New("unterminated escape")
		case s[i] == '\\':
			b.WriteByte('\\')
		case s[i] == 'n':
			b.WriteByte('\n')
		default:
			return "", fmt.Errorf("unknown escape \\%c", s[i])
		}
	}
	return b.String(), nil
}
