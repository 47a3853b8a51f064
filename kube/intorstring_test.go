// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

func TestIntOrStringJSON(t *testing.T) {
	type holder struct {
		V  kube.IntOrString  `json:"v"`
		P  *kube.IntOrString `json:"p,omitempty"`
		OZ kube.IntOrString  `json:"oz,omitzero"`
	}
	for _, tc := range []struct {
		in   holder
		want string
	}{
		{holder{}, `{"v":0}`},
		{holder{V: kube.IntOrStringFromInt(-8080)}, `{"v":-8080}`},
		{holder{V: kube.IntOrStringFromString("25%")}, `{"v":"25%"}`},
		{holder{V: kube.IntOrStringFromString("")}, `{"v":""}`},
		{holder{V: kube.IntOrStringFromString("8080")}, `{"v":"8080"}`},
		{holder{P: &kube.IntOrString{IsString: true, StrVal: "http"}}, `{"v":0,"p":"http"}`},
		{holder{OZ: kube.IntOrStringFromInt(1)}, `{"v":0,"oz":1}`},
	} {
		b, err := json.Marshal(tc.in)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%+v) = %s, %v, want %s", tc.in, b, err, tc.want)
			continue
		}
		var back holder
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("Unmarshal(%s): %v", b, err)
			continue
		}
		if back.V != tc.in.V || (back.P == nil) != (tc.in.P == nil) || back.P != nil && *back.P != *tc.in.P {
			t.Errorf("Unmarshal(%s) = %+v, want %+v", b, back, tc.in)
		}
	}
}

func TestIntOrStringUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    kube.IntOrString
		wantErr string
	}{
		{`1e3`, kube.IntOrStringFromInt(1000), ""},
		{`2.0`, kube.IntOrStringFromInt(2), ""},
		{`null`, kube.IntOrString{}, ""},
		{`"a\"b"`, kube.IntOrStringFromString(`a"b`), ""},
		{`1.5`, kube.IntOrString{}, "not an integer within int32"},
		{`2147483648`, kube.IntOrString{}, "not an integer within int32"},
		{`true`, kube.IntOrString{}, "a JSON boolean is neither a number nor a string"},
		{`{}`, kube.IntOrString{}, "neither a number nor a string"},
		{`[1]`, kube.IntOrString{}, "neither a number nor a string"},
	} {
		var got kube.IntOrString
		err := json.Unmarshal([]byte(tc.in), &got)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("Unmarshal(%s) error = %v, want one containing %q", tc.in, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("Unmarshal(%s) = %+v, %v, want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestIntOrStringScaledValue(t *testing.T) {
	for _, tc := range []struct {
		v       kube.IntOrString
		total   int
		roundUp bool
		want    int
		wantErr bool
	}{
		{kube.IntOrStringFromInt(3), 10, false, 3, false},
		{kube.IntOrStringFromString("25%"), 10, false, 2, false},
		{kube.IntOrStringFromString("25%"), 10, true, 3, false},
		{kube.IntOrStringFromString("100%"), 7, false, 7, false},
		{kube.IntOrStringFromString("0%"), 7, true, 0, false},
		{kube.IntOrStringFromString("25"), 10, false, 0, true},
		{kube.IntOrStringFromString("x%"), 10, false, 0, true},
	} {
		got, err := tc.v.ScaledValue(tc.total, tc.roundUp)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("%v.ScaledValue(%d, %v) = %d, %v, want %d (error %v)", tc.v, tc.total, tc.roundUp, got, err, tc.want, tc.wantErr)
		}
	}
	if s := kube.IntOrStringFromInt(-5).String(); s != "-5" {
		t.Errorf("String() = %q, want -5", s)
	}
}
