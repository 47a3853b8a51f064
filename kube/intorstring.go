// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// IntOrString holds a value the API lets be either an integer or a string,
// such as a port (8080 or "http") or a surge (2 or "25%"); it is what
// apimachinery's intstr.IntOrString is. On the wire it is a JSON number or
// a JSON string, never an object; kube/crd describes it with
// x-kubernetes-int-or-string.
//
// The zero value is the integer 0.
type IntOrString struct {
	// IsString says that StrVal holds the value; otherwise IntVal does,
	// and the other field is ignored.
	IsString bool
	IntVal   int32
	StrVal   string
}

// IntOrStringFromInt returns an IntOrString holding the integer i.
func IntOrStringFromInt(i int32) IntOrString { return IntOrString{IntVal: i} }

// IntOrStringFromString returns an IntOrString holding the string s.
func IntOrStringFromString(s string) IntOrString { return IntOrString{IsString: true, StrVal: s} }

// String returns the value as text: the string, or the integer in
// decimal.
func (v IntOrString) String() string {
	if v.IsString {
		return v.StrVal
	}
	return strconv.Itoa(int(v.IntVal))
}

// MarshalJSON implements [json.Marshaler]: a JSON string or number.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	if v.IsString {
		return json.Marshal(v.StrVal)
	}
	return strconv.AppendInt(nil, int64(v.IntVal), 10), nil
}

// UnmarshalJSON implements [json.Unmarshaler]. It takes a JSON string, or
// a JSON number that is a whole number within int32 (1.0 and 1e3 are
// whole; 1.5 is refused); null leaves the zero value.
func (v *IntOrString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0:
		return errs.Errorf("decode IntOrString: empty value")
	case string(b) == "null":
		*v = IntOrString{}
		return nil
	case b[0] == '"':
		s, err := jsondec.Unquote(b)
		if err != nil {
			return errs.Errorf("decode IntOrString: %w", err)
		}
		*v = IntOrStringFromString(s)
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || b[0] != '-' && (b[0] < '0' || b[0] > '9') {
		return errs.Errorf("decode IntOrString: %s is neither a number nor a string", jsonKind(b[0]))
	}
	if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return errors.New("decode IntOrString: a number that is not an integer within int32")
	}
	*v = IntOrStringFromInt(int32(f))
	return nil
}

// ScaledValue resolves v against a total, as Deployments resolve
// maxSurge: an integer is itself, a percentage such as "25%" is that share
// of total, rounded up when roundUp is set and down otherwise. A string
// that is not an integer followed by "%" is an error.
func (v IntOrString) ScaledValue(total int, roundUp bool) (int, error) {
	if !v.IsString {
		return int(v.IntVal), nil
	}
	digits, ok := strings.CutSuffix(v.StrVal, "%")
	pct, err := strconv.Atoi(digits)
	if !ok || err != nil {
		return 0, errs.Errorf("scale %q: want an integer or a percentage such as \"25%%\"", v.StrVal)
	}
	share := float64(pct) * float64(total) / 100
	if roundUp {
		return int(math.Ceil(share)), nil
	}
	return int(math.Floor(share)), nil
}
