// SPDX-License-Identifier: Apache-2.0

// Package listopts reads the options of a list or watch ([Parse],
// [Selectors]), checks them as kube-apiserver 1.37's ValidateListOptions
// does ([Validate]; all three in order: [Read]), reads the resourceVersion
// a get, watch or list asks for ([ParseRV], [Options.Version]), and makes
// and reads the continue tokens of paged lists ([EncodeContinue],
// [DecodeContinue], [ReadContinue]) in the real server's form, so that a
// client may hand a token of one to the other.
//
// Guarantees:
//   - Pure: nothing is kept; every error is reported, not only the first.
//   - A token made by EncodeContinue decodes to the same version and key.
//   - The errors are the real server's answers (status, reason, message):
//     400 for a bad number, selector, token or list resourceVersion, 422
//     for a bad combination, 500 for a get's or watch's malformed
//     resourceVersion, 410 for a continue token whose version is gone
//     ([ContinueExpired], carrying a token that goes on at the latest).
package listopts

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/requestinfo"
)

// Options are the options Validate checks.
type Options struct {
	RV, Match, Continue string
	// SendInitialEvents is nil when the request does not say.
	SendInitialEvents *bool
}

// Validate checks o for a list or (watch) a watch, after the WatchList
// defaulting of a legacy watch (resourceVersion "" or "0") to
// sendInitialEvents=true with resourceVersionMatch NotOlderThan, which it
// applies to o. Without the WatchList gate (watchList false: 1.33) a
// legacy watch is left as it is and a watch with sendInitialEvents is
// refused; watchList does not matter to a list.
func Validate(o *Options, watch, watchList bool) []fielderr.Error {
	var errs []fielderr.Error
	forbid := func(field, detail string) {
		errs = append(errs, fielderr.Error{Type: "FieldValueForbidden", Field: field, Detail: detail})
	}
	if watch {
		if watchList && o.SendInitialEvents == nil && o.Match == "" && (o.RV == "" || o.RV == "0") {
			t := true
			o.SendInitialEvents, o.Match = &t, "NotOlderThan"
		}
		if o.SendInitialEvents != nil && o.Match != "NotOlderThan" {
			forbid("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
		}
		if o.SendInitialEvents != nil && !watchList {
			forbid("sendInitialEvents", "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled")
		}
		if o.Match != "" {
			if o.SendInitialEvents == nil {
				forbid("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
			}
			if o.Match != "NotOlderThan" {
				errs = append(errs, fielderr.Error{Type: "FieldValueNotSupported", Field: "resourceVersionMatch",
					Value: o.Match, Detail: fielderr.NotSupportedDetail("NotOlderThan")})
			}
			if o.Continue != "" {
				forbid("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided")
			}
		}
		return errs
	}
	if o.Match != "" {
		if o.RV == "" {
			forbid("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided")
		}
		if o.Continue != "" {
			forbid("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided")
		}
		if o.Match != "Exact" && o.Match != "NotOlderThan" {
			errs = append(errs, fielderr.Error{Type: "FieldValueNotSupported", Field: "resourceVersionMatch",
				Value: o.Match, Detail: fielderr.NotSupportedDetail("Exact", "NotOlderThan", "")})
		}
		if o.Match == "Exact" && o.RV == "0" {
			forbid("resourceVersionMatch", `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`)
		}
	}
	if o.SendInitialEvents != nil {
		forbid("sendInitialEvents", "sendInitialEvents is forbidden for list")
	}
	return errs
}

// Token is the real server's continue token, base64 (URL alphabet, no
// padding) of this JSON. RV -1 continues at the latest version.
type Token struct {
	APIVersion string `json:"v"`
	RV         int64  `json:"rv"`
	Start      string `json:"start"`
}

// EncodeContinue is the token of a list at rv that goes on after the key
// start.
func EncodeContinue(rv int64, start string) string {
	b, _ := json.Marshal(Token{APIVersion: "meta.k8s.io/v1", RV: rv, Start: "/" + start + "\x00"})
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeContinue reads a token; invalid is the message of the real
// server's 400 for a bad one. Start is the key the list goes on after.
func DecodeContinue(s string) (t Token, invalid string) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err == nil && (t.APIVersion != "meta.k8s.io/v1" || !strings.HasPrefix(t.Start, "/") || t.RV == 0) {
		err = fmt.Errorf("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	}
	if err != nil {
		return t, "invalid continue token: " + err.Error()
	}
	t.Start = strings.TrimSuffix(t.Start[1:], "\x00")
	return t, ""
}

// Query is what a list or watch query asks, read by [Parse].
type Query struct {
	Options
	Limit          int64
	TimeoutSeconds int64
	Bookmarks      bool
}

// Parse reads the options of a list or watch query; bad is the message
// of the real server's 400 for a limit or timeoutSeconds that is not a
// number.
func Parse(q url.Values) (o Query, bad string) {
	o = Query{Options: Options{RV: q.Get("resourceVersion"), Match: q.Get("resourceVersionMatch"), Continue: q.Get("continue")},
		Bookmarks: requestinfo.QueryBool(q, "allowWatchBookmarks")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return o, fmt.Sprintf("invalid limit %q: %v", v, err)
		}
		o.Limit = max(n, 0)
	}
	if v := q.Get("timeoutSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return o, fmt.Sprintf("invalid timeoutSeconds %q: %v", v, err)
		}
		o.TimeoutSeconds = n
	}
	if _, ok := q["sendInitialEvents"]; ok {
		b := requestinfo.QueryBool(q, "sendInitialEvents")
		o.SendInitialEvents = &b
	}
	return o, ""
}

// Selectors reads labelSelector and fieldSelector, adding
// metadata.name=name for the legacy watch of one object (name not "").
// A field that supported refuses is bad with the message notSupported
// gives, as the real server refuses it.
func Selectors(q url.Values, name string, supported func(string) bool, notSupported func(string) string) (
	labels kube.Selector, fields kube.FieldSelector, bad string) {
	if v := q.Get("labelSelector"); v != "" {
		sel, err := kube.ParseSelector(v)
		if err != nil {
			return labels, fields, "unable to parse requirement: " + err.Error()
		}
		labels = sel
	}
	fs := q.Get("fieldSelector")
	if name != "" {
		if fs != "" {
			fs += ","
		}
		fs += "metadata.name=" + name
	}
	if fs != "" {
		sel, err := kube.ParseFieldSelector(fs)
		if err != nil {
			return labels, fields, err.Error()
		}
		for _, r := range sel.Requirements() {
			if !supported(r.Field) {
				return labels, fields, notSupported(r.Field)
			}
		}
		fields = sel
	}
	return labels, fields, ""
}
