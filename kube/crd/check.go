// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file refuses, while the Go type is at hand, the tags that
// kube-apiserver would refuse when the CRD is installed (an invalid
// pattern, an empty rule), would ignore (a format it does not know), or
// would take and then enforce against every object (bounds no value fits,
// a multipleOf that is not above 0). The facts are kube-apiserver 1.36's:
// its CRD validation and the formats it validates.

// checkValue checks the value keywords a tag put on s, a scalar.
func checkValue(s *Schema, tg tags) error {
	if tg.pattern != "" {
		// kube-apiserver compiles patterns with Go's regexp, as here.
		if _, err := regexp.Compile(tg.pattern); err != nil {
			return fmt.Errorf("pattern=%s: not a regular expression kube-apiserver takes (it refuses the CRD): %v", tg.pattern, err)
		}
	}
	if tg.format != "" {
		if err := checkFormat(s, tg.format); err != nil {
			return err
		}
	}
	if s.MultipleOf != nil && *s.MultipleOf <= 0 {
		return fmt.Errorf("multipleOf=%s: want a number above 0 (kube-apiserver refuses every value otherwise)", num(*s.MultipleOf))
	}
	if s.Minimum != nil && s.Maximum != nil {
		lo, hi := *s.Minimum, *s.Maximum
		if lo > hi {
			return fmt.Errorf("minimum=%s is above maximum=%s: no value fits", num(lo), num(hi))
		}
		if lo == hi && (s.ExclusiveMinimum || s.ExclusiveMaximum) {
			return fmt.Errorf("minimum=%s and maximum=%s, one exclusive: no value fits", num(lo), num(hi))
		}
	}
	return checkRange("minLength", s.MinLength, "maxLength", s.MaxLength)
}

// checkRange refuses a lower bound above the upper one.
func checkRange(minKey string, lo *int64, maxKey string, hi *int64) error {
	if lo != nil && hi != nil && *lo > *hi {
		return fmt.Errorf("%s=%d is above %s=%d: no value fits", minKey, *lo, maxKey, *hi)
	}
	return nil
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// checkFormat refuses a format kube-apiserver does not know for the type
// of s: it would ignore it (with a warning) and validate nothing.
func checkFormat(s *Schema, format string) error {
	switch {
	case s.Type == "string" || s.Type == "" || s.XIntOrString:
		// The server compares string formats without their dashes
		// ("date-time" is "datetime"); k8s-short-name and k8s-long-name
		// are known from 1.34 on.
		known := []string{"bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac",
			"uuid", "uuid3", "uuid4", "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn",
			"hexcolor", "rgbcolor", "byte", "password", "date", "duration", "date-time",
			"k8s-short-name", "k8s-long-name"}
		bare := strings.ReplaceAll(format, "-", "")
		for _, k := range known {
			if bare == strings.ReplaceAll(k, "-", "") {
				return nil
			}
		}
		return fmt.Errorf("format=%s: kube-apiserver knows no such format of a string (it would ignore it): want %s", format, orList(known))
	case s.Type == "integer" && (format == "int32" || format == "int64"),
		s.Type == "number" && (format == "float" || format == "double"):
		return nil
	case s.Type == "integer":
		return fmt.Errorf("format=%s: kube-apiserver knows no such format of an integer (it knows int32, int64)", format)
	case s.Type == "number":
		return fmt.Errorf("format=%s: kube-apiserver knows no such format of a number (it knows float, double)", format)
	}
	return fmt.Errorf("format=%s: kube-apiserver knows no format of %s", format, typeName(s))
}

// checkRules refuses the x-kubernetes-validations kube-apiserver refuses
// whatever their CEL says.
func checkRules(rules []ValidationRule) error {
	for _, r := range rules {
		rule, msg := strings.TrimSpace(r.Rule), strings.TrimSpace(r.Message)
		switch {
		case rule == "":
			return fmt.Errorf("rule=%s: empty (kube-apiserver refuses the CRD)", r.Rule)
		case r.Message != "" && msg == "":
			return fmt.Errorf("message=%s: blank (kube-apiserver refuses the CRD; leave message out for its default)", r.Message)
		case strings.ContainsAny(msg, "\r\n"):
			return fmt.Errorf("message=%s: holds a line break (kube-apiserver refuses the CRD)", r.Message)
		case strings.ContainsAny(rule, "\r\n") && msg == "":
			return errors.New("rule=...: a rule of several lines needs a message (kube-apiserver refuses the CRD)")
		}
	}
	return nil
}

// checkDefault refuses a default of a scalar that the schema's own
// keywords refuse: kube-apiserver validates defaults against the schema
// and refuses the CRD. (Defaults of objects and arrays are left to it.)
func checkDefault(s *Schema, text string) error {
	var v any
	if err := json.Unmarshal(s.Default, &v); err != nil {
		return fmt.Errorf("default=%s: %v", text, err)
	}
	switch v := v.(type) {
	case float64:
		if s.Minimum != nil && (v < *s.Minimum || s.ExclusiveMinimum && v == *s.Minimum) {
			return fmt.Errorf("default=%s is below minimum=%s", text, num(*s.Minimum))
		}
		if s.Maximum != nil && (v > *s.Maximum || s.ExclusiveMaximum && v == *s.Maximum) {
			return fmt.Errorf("default=%s is above maximum=%s", text, num(*s.Maximum))
		}
		if m := s.MultipleOf; m != nil && *m > 0 {
			// As kube-apiserver divides: by the factor, or times its
			// inverse when it is below 1; and as it, a quotient within a
			// billionth of a whole number is whole (0.7 of 0.1).
			q := v / *m
			if *m < 1 {
				q = 1 / *m * v
			}
			if math.Abs(q-math.Round(q)) > 1e-9*math.Abs(q) {
				return fmt.Errorf("default=%s is not a multiple of multipleOf=%s", text, num(*m))
			}
		}
	case string:
		n := int64(utf8.RuneCountInString(v))
		if s.MinLength != nil && n < *s.MinLength {
			return fmt.Errorf("default=%s is shorter than minLength=%d", text, *s.MinLength)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return fmt.Errorf("default=%s is longer than maxLength=%d", text, *s.MaxLength)
		}
		if s.Pattern != "" {
			if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(v) {
				return fmt.Errorf("default=%s does not match pattern=%s", text, s.Pattern)
			}
		}
	}
	switch v.(type) {
	case float64, string, bool:
	default:
		return nil
	}
	if len(s.Enum) == 0 {
		return nil
	}
	var values []string
	for _, e := range s.Enum {
		var ev any
		if json.Unmarshal(e, &ev) == nil && reflect.DeepEqual(ev, v) {
			return nil
		}
		values = append(values, strings.Trim(string(e), `"`))
	}
	return fmt.Errorf("default=%s is not in enum=%s", text, strings.Join(values, ";"))
}
