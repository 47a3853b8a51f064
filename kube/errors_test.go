// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestErrorsFromCaptures(t *testing.T) {
	tests := []struct {
		capture string
		is      func(error) bool
		isName  string
		message string
	}{
		{"07-create-conflict-exists.txt", IsAlreadyExists, "IsAlreadyExists", `configmaps "created" already exists`},
		{"08-get-notfound.txt", IsNotFound, "IsNotFound", `configmaps "nope" not found`},
		{"13-update-stale-rv.txt", IsConflict, "IsConflict", "the object has been modified"},
		{"14-invalid-name.txt", IsInvalid, "IsInvalid", `ConfigMap "Bad_Name" is invalid`},
		{"17-json-patch-test-fails.txt", IsInvalid, "IsInvalid", "the server rejected our request"},
		{"27-list-exact-compacted.txt", IsGone, "IsGone", "too old"},
	}
	all := map[string]func(error) bool{
		"IsNotFound": IsNotFound, "IsAlreadyExists": IsAlreadyExists, "IsConflict": IsConflict,
		"IsInvalid": IsInvalid, "IsForbidden": IsForbidden, "IsUnauthorized": IsUnauthorized,
		"IsGone": IsGone, "IsTooManyRequests": IsTooManyRequests, "IsInternalError": IsInternalError,
	}
	for _, tt := range tests {
		t.Run(tt.capture, func(t *testing.T) {
			c := readCapture(t, tt.capture)
			se := errorFromResponse(newDecoders().all, c.code, c.header, c.body)
			err := fmt.Errorf("get ConfigMap default/x: %w", se)
			if !tt.is(err) {
				t.Errorf("%s(%v) = false, want true", tt.isName, err)
			}
			for name, is := range all {
				if name != tt.isName && is(err) {
					t.Errorf("%s(%v) = true, want false", name, err)
				}
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("error %q does not contain %q", err, tt.message)
			}
			if se.Status.Code != int32(c.code) {
				t.Errorf("Code = %d, want %d", se.Status.Code, c.code)
			}
		})
	}
}

func TestInvalidCauses(t *testing.T) {
	c := readCapture(t, "14-invalid-name.txt")
	se := errorFromResponse(newDecoders().all, c.code, c.header, c.body)
	if se.Status.Details == nil || len(se.Status.Details.Causes) != 1 {
		t.Fatalf("Details = %+v, want one cause", se.Status.Details)
	}
	cause := se.Status.Details.Causes[0]
	if cause.Field != "metadata.name" || cause.Type != "FieldValueInvalid" {
		t.Errorf("cause = %+v, want field metadata.name, reason FieldValueInvalid", cause)
	}
}

func TestErrorFromNonStatusBody(t *testing.T) {
	tests := []struct {
		code    int
		body    string
		is      func(error) bool
		message string
	}{
		{404, "404 page not found\n", IsNotFound, "404: 404 page not found"},
		{500, "<html>proxy error</html>", IsInternalError, "500: <html>proxy error</html>"},
		{403, "", IsForbidden, "403: Forbidden"},
		{401, `{"kind":"Other"}`, IsUnauthorized, `401: not a Status: a JSON object of kind Other, 16 bytes`},
		{429, strings.Repeat("x", 2000), IsTooManyRequests, "..."},
	}
	for _, tt := range tests {
		se := errorFromResponse(newDecoders().all, tt.code, http.Header{}, []byte(tt.body))
		if !tt.is(se) {
			t.Errorf("errorFromResponse(newDecoders().all, %d, %q): predicate false; status %+v", tt.code, tt.body, se.Status)
		}
		if !strings.Contains(se.Error(), tt.message) {
			t.Errorf("errorFromResponse(newDecoders().all, %d, %q).Error() = %q, want it to contain %q", tt.code, tt.body, se.Error(), tt.message)
		}
		if len(se.Error()) > maxErrorBody+100 {
			t.Errorf("errorFromResponse(newDecoders().all, %d, ...) message is %d bytes, want it bounded", tt.code, len(se.Error()))
		}
	}
}

func TestRetryAfter(t *testing.T) {
	h := http.Header{}
	h.Set("Retry-After", "7")
	se := errorFromResponse(newDecoders().all, 429, h, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429,"details":{"retryAfterSeconds":3}}`))
	if se.RetryAfter != 7*time.Second {
		t.Errorf("RetryAfter = %v, want 7s (the header wins)", se.RetryAfter)
	}
	se = errorFromResponse(newDecoders().all, 429, http.Header{}, []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429,"details":{"retryAfterSeconds":3}}`))
	if se.RetryAfter != 3*time.Second {
		t.Errorf("RetryAfter = %v, want 3s from details", se.RetryAfter)
	}
}

func TestIgnoreNotFound(t *testing.T) {
	notFound := fmt.Errorf("get ConfigMap a/b: %w", NewStatusError(404, ReasonNotFound, `configmaps "b" not found`))
	if err := IgnoreNotFound(notFound); err != nil {
		t.Errorf("IgnoreNotFound(%v) = %v, want nil", notFound, err)
	}
	conflict := NewStatusError(409, ReasonConflict, "stale")
	if err := IgnoreNotFound(conflict); err != conflict {
		t.Errorf("IgnoreNotFound(%v) = %v, want it unchanged", conflict, err)
	}
	if err := IgnoreNotFound(nil); err != nil {
		t.Errorf("IgnoreNotFound(nil) = %v", err)
	}
}

// TestDeletedMeanwhileIsNotFound: kube-apiserver 1.33 answers a PUT whose
// object carries the uid of an object deleted since it was read with a
// 409 Conflict naming storage's invalid-object error (1.36 and 1.37 answer
// 404): it is NotFound, not a Conflict, so that IgnoreNotFound, the
// finalizer helpers and RetryOnConflict treat the object as gone. The
// same error naming another uid (the name made again) stays a Conflict.
func TestDeletedMeanwhileIsNotFound(t *testing.T) {
	const prefix = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \"x\": ` +
		`StorageError: invalid object, Code: 4, Key: /registry/configmaps/ns/x, ResourceVersion: 0, AdditionalErrorMsg: ` +
		`Precondition failed: UID in precondition: 4f6c4e2a-4d0e-4b54-9e32-0c4a5b1d2e3f, UID in object meta: `
	const suffix = `","reason":"Conflict","details":{"name":"x","kind":"configmaps"},"code":409}`
	for _, tc := range []struct {
		name            string
		stored          string
		notFound, confl bool
	}{
		{"deleted meanwhile (1.33)", "", true, false},
		{"made again with another uid", "0b1c2d3e-0000-4000-8000-000000000001", false, true},
	} {
		se := errorFromResponse(newDecoders().all, 409, http.Header{}, []byte(prefix+tc.stored+suffix))
		err := fmt.Errorf("update ConfigMap ns/x: %w", se)
		if IsNotFound(err) != tc.notFound || IsConflict(err) != tc.confl {
			t.Errorf("%s: IsNotFound = %v, IsConflict = %v; want %v, %v", tc.name, IsNotFound(err), IsConflict(err), tc.notFound, tc.confl)
		}
		if got := IgnoreNotFound(err); (got == nil) != tc.notFound {
			t.Errorf("%s: IgnoreNotFound = %v", tc.name, got)
		}
	}
	stale := fmt.Errorf("update: %w", NewStatusError(409, ReasonConflict, `Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again`))
	if IsNotFound(stale) || !IsConflict(stale) {
		t.Errorf("a stale resourceVersion's 409: IsNotFound = %v, IsConflict = %v; want false, true", IsNotFound(stale), IsConflict(stale))
	}
}
