// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"unicode/utf8"
)

// statusCaptures are the real server's failed answers; FuzzStatusError's
// seeds hold the short ones, TestStatusErrorCaptures checks all.
var statusCaptures = []string{"07-create-conflict-exists.txt", "08-get-notfound.txt", "13-update-stale-rv.txt",
	"14-invalid-name.txt", "17-json-patch-test-fails.txt", "25-unauthorized.txt", "27-list-exact-compacted.txt"}

// TestStatusErrorCaptures runs FuzzStatusError's checks on the real
// server's answers whole.
func TestStatusErrorCaptures(t *testing.T) {
	for _, name := range statusCaptures {
		t.Run(name, func(t *testing.T) {
			c := readCapture(t, name)
			checkStatusError(t, uint16(c.code), c.body, c.header.Get("Retry-After"))
		})
	}
}

// FuzzStatusError decodes a failed response (any code from 400 on, any
// body, any Retry-After header) as the client does and checks the error:
// it has a code, its text is bounded by the body and valid UTF-8 when the
// body is, its retry delay is never negative and follows the header, and
// the Is functions agree with its reason and code as client-go's do (the
// reason decides when the client knows it, the code otherwise), so that
// at most one of them holds, through wrapping too.
//
// The seeds are short (see FuzzListEach): the captures of up to 400 bytes
// and one of 14-invalid-name.txt cut down.
func FuzzStatusError(f *testing.F) {
	for _, name := range statusCaptures {
		if c := readCapture(f, name); len(c.body) <= 400 {
			f.Add(uint16(c.code), c.body, c.header.Get("Retry-After"))
		}
	}
	for _, s := range []struct {
		code       uint16
		body, wait string
	}{
		{422, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value","reason":"Invalid","details":{"name":"Bad_Name","kind":"ConfigMap","causes":[{"reason":"FieldValueInvalid","message":"Invalid value","field":"metadata.name"}]},"code":422}`, ""},
		{404, "404 page not found\n", ""},
		{500, "<html>proxy error</html>", ""},
		{403, "", ""},
		{401, `{"kind":"Other"}`, ""},
		{429, `{"kind":"Status","reason":"TooManyRequests","details":{"retryAfterSeconds":3}}`, "7"},
		{410, `{"kind":"Status","reason":"Expired","code":410}`, ""},
		{503, `{"kind":"Status","message":""}`, "-1"},
		{429, "slow down", "99999999999"},
		{400, "\xff\xfe", ""},
	} {
		f.Add(s.code, []byte(s.body), s.wait)
	}
	f.Fuzz(checkStatusError)
}

// checkStatusError decodes a failed response with code (400+code%600
// when code is not from 400 to 999), body and Retry-After wait as the
// client does and checks the error as FuzzStatusError says.
func checkStatusError(t *testing.T, code uint16, body []byte, wait string) {
	c := int(code)
	if c < 400 || c > 999 {
		c = 400 + c%600
	}
	if len(body) > 64<<10 { // what do reads of an error body
		body = body[:64<<10]
	}
	h := http.Header{}
	if wait != "" {
		h.Set("Retry-After", wait)
	}
	se := errorFromResponse(newDecoders().all, c, h, body)
	st := se.Status
	if st.Code == 0 {
		t.Errorf("errorFromResponse(newDecoders().all, %d, %q): code 0", c, body)
	}
	msg := se.Error()
	if limit := 3*len(body) + maxErrorBody + 64; len(msg) > limit {
		t.Errorf("errorFromResponse(newDecoders().all, %d, %q): error text of %d bytes, more than %d", c, body, len(msg), limit)
	}
	if utf8.Valid(body) && !utf8.ValidString(msg) {
		t.Errorf("errorFromResponse(newDecoders().all, %d, %q).Error() = %q, not valid UTF-8", c, body, msg)
	}
	if se.RetryAfter < 0 {
		t.Errorf("errorFromResponse(newDecoders().all, %d, %q, Retry-After %q): RetryAfter %v", c, body, wait, se.RetryAfter)
	}
	if secs, err := strconv.Atoi(wait); err == nil && secs > 0 && se.RetryAfter <= 0 {
		t.Errorf("errorFromResponse(newDecoders().all, Retry-After %q): RetryAfter %v, want a positive delay", wait, se.RetryAfter)
	}
	if st.Kind != "Status" {
		t.Errorf("errorFromResponse(newDecoders().all, %d, %q): kind %q, want Status", c, body, st.Kind)
	}

	wrapped := fmt.Errorf("get ConfigMap default/x: %w", se)
	held := 0
	for _, is := range statusIs {
		want := is.reasons[st.Reason] || is.code != 0 && st.Code == is.code && (is.anyReason || !clientGoKnows(st.Reason))
		if got := is.fn(se); got != want {
			t.Errorf("%s(reason %q, code %d) = %v, want %v", is.name, st.Reason, st.Code, got, want)
		}
		if got := is.fn(wrapped); got != want {
			t.Errorf("%s(wrapped reason %q, code %d) = %v, want %v", is.name, st.Reason, st.Code, got, want)
		}
		if is.reasons[st.Reason] || st.Code == is.code && !clientGoKnows(st.Reason) {
			held++ // 429 with another known reason is also that reason's
		}
		if is.fn(errors.New(msg)) {
			t.Errorf("%s(a plain error) = true", is.name)
		}
	}
	if held > 1 {
		t.Errorf("reason %q, code %d: %d Is functions hold, want at most one", st.Reason, st.Code, held)
	}
}

// statusIs lists the Is functions with the reasons and code they stand
// for. anyReason says the code counts whatever the reason (429, as in
// client-go); otherwise it counts only when the reason is not one the
// client knows.
var statusIs = []struct {
	name      string
	fn        func(error) bool
	reasons   map[string]bool
	code      int32
	anyReason bool
}{
	{"IsNotFound", IsNotFound, map[string]bool{ReasonNotFound: true}, 404, false},
	{"IsAlreadyExists", IsAlreadyExists, map[string]bool{ReasonAlreadyExists: true}, 0, false},
	{"IsConflict", IsConflict, map[string]bool{ReasonConflict: true}, 409, false},
	{"IsInvalid", IsInvalid, map[string]bool{ReasonInvalid: true}, 422, false},
	{"IsForbidden", IsForbidden, map[string]bool{ReasonForbidden: true}, 403, false},
	{"IsUnauthorized", IsUnauthorized, map[string]bool{ReasonUnauthorized: true}, 401, false},
	{"IsGone", IsGone, map[string]bool{ReasonGone: true, ReasonExpired: true}, 410, false},
	{"IsTooManyRequests", IsTooManyRequests, map[string]bool{ReasonTooManyRequests: true}, 429, true},
	{"IsInternalError", IsInternalError, map[string]bool{ReasonInternalError: true}, 500, false},
}

// clientGoKnows reports whether client-go's errors package knows reason
// (its knownReasons, written out here as the wire spells them).
func clientGoKnows(reason string) bool {
	switch reason {
	case "Unauthorized", "Forbidden", "NotFound", "AlreadyExists", "Conflict", "Gone", "Invalid",
		"ServerTimeout", "StorageReadError", "Timeout", "TooManyRequests", "BadRequest",
		"MethodNotAllowed", "NotAcceptable", "RequestEntityTooLarge", "UnsupportedMediaType",
		"InternalError", "Expired", "ServiceUnavailable":
		return true
	}
	return false
}
