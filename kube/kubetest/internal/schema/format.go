// SPDX-License-Identifier: Apache-2.0

package schema

import (
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/validation"
)

// This file checks the string formats CRD schemas may name, as the real
// server's format registry (k8s.io/kube-openapi/pkg/validation/strfmt)
// checks them. Formats the real server does not support are not checked
// (it strips them from the schema), and neither are isbn and creditcard.

var (
	rxHostname = regexp.MustCompile(`^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$`)
	rxUUID     = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	rxUUID3    = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	rxUUID4    = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`)
	rxUUID5    = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`)
	rxTime     = regexp.MustCompile(`^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`)
	rxBase64   = regexp.MustCompile(`^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$`)
	rxHexColor = regexp.MustCompile(`^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
	rxRGBColor = regexp.MustCompile(`^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$`)
	rxSSN      = regexp.MustCompile(`^\d{3}[- ]?\d{2}[- ]?\d{4}$`)
	rxBSONID   = regexp.MustCompile(`^[0-9a-fA-F]{24}$`)
	rxDuration = regexp.MustCompile(`^(\d+)\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)$`)
	rxShort    = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
)

// validFormat reports whether s has the format; unknown formats accept
// anything.
func validFormat(format, s string) bool {
	switch strings.ReplaceAll(format, "-", "") {
	case "datetime":
		date, rest, ok := strings.Cut(strings.ToLower(s), "t")
		if !ok || len(s) < 4 {
			return false
		}
		if _, err := time.Parse("2006-01-02", date); err != nil {
			return false
		}
		m := rxTime.FindStringSubmatch(rest)
		return m != nil && m[1] <= "23" && m[2] <= "59" && m[3] <= "59"
	case "date":
		_, err := time.Parse("2006-01-02", s)
		return err == nil
	case "duration":
		if _, err := time.ParseDuration(s); err == nil {
			return true
		}
		return rxDuration.MatchString(strings.TrimSpace(s))
	case "byte":
		return rxBase64.MatchString(s)
	case "uuid":
		return rxUUID.MatchString(s)
	case "uuid3":
		return rxUUID3.MatchString(s)
	case "uuid4":
		return rxUUID4.MatchString(s)
	case "uuid5":
		return rxUUID5.MatchString(s)
	case "ipv4":
		ip := net.ParseIP(s)
		return ip != nil && strings.Contains(s, ".")
	case "ipv6":
		ip := net.ParseIP(s)
		return ip != nil && strings.Contains(s, ":")
	case "cidr":
		_, _, err := net.ParseCIDR(s)
		return err == nil
	case "mac":
		_, err := net.ParseMAC(s)
		return err == nil
	case "hostname":
		if !rxHostname.MatchString(s) || len(s) > 255 {
			return false
		}
		for part := range strings.SplitSeq(s, ".") {
			if len(part) > 63 {
				return false
			}
		}
		return true
	case "email":
		addr, err := mail.ParseAddress(s)
		return err == nil && addr.Address != ""
	case "uri":
		_, err := url.ParseRequestURI(s)
		return err == nil
	case "hexcolor":
		return rxHexColor.MatchString(s)
	case "rgbcolor":
		return rxRGBColor.MatchString(s)
	case "ssn":
		return rxSSN.MatchString(s)
	case "bsonobjectid":
		return rxBSONID.MatchString(s)
	case "k8sshortname":
		return len(s) <= 63 && rxShort.MatchString(s)
	case "k8slongname":
		return len(validation.IsDNS1123Subdomain(s)) == 0
	}
	return true
}
