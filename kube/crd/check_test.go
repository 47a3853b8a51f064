// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// specObject is a resource whose spec is S.
type specObject[S any] struct {
	kube.ObjectMeta `json:"metadata"`
	Spec            S `json:"spec"`
}

func (*specObject[S]) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "test.kubeloop.dev", Version: "v1", Kind: "Tagged"}
}

func forSpec[S any]() error {
	_, err := For(&specObject[S]{}, Options{})
	return err
}

// One type per tag kube-apiserver refuses (or takes, and then holds no
// value to).
type (
	badPattern struct {
		S string `json:"s" crd:"pattern=(("`
	}
	badPatternInItems struct {
		S []string `json:"s" crd:"pattern='a{2,1}'"`
	}
	badBounds struct {
		N int32 `json:"n" crd:"minimum=10,maximum=1"`
	}
	badExclusive struct {
		N int32 `json:"n" crd:"minimum=1,maximum=1,exclusiveMaximum"`
	}
	badUnsignedMax struct {
		N uint `json:"n" crd:"maximum=-1"`
	}
	badLengths struct {
		S string `json:"s" crd:"minLength=5,maxLength=2"`
	}
	badItems struct {
		L []int `json:"l" crd:"minItems=3,maxItems=2"`
	}
	badProperties struct {
		M map[string]int `json:"m" crd:"minProperties=3,maxProperties=2"`
	}
	badType struct {
		C Custom `json:"c" crd:"type=bogus"`
	}
	badTypeArray struct {
		C Custom `json:"c" crd:"type=array"`
	}
	badMultipleOf struct {
		N int `json:"n" crd:"multipleOf=0"`
	}
	badNegMultipleOf struct {
		N float64 `json:"n" crd:"multipleOf=-2"`
	}
	badEmptyRule struct {
		I Inner `json:"i" crd:"rule="`
	}
	badBlankRule struct {
		I Inner `json:"i" crd:"rule=' '"`
	}
	badBlankMessage struct {
		I Inner `json:"i" crd:"rule='self.A != \"\"',message=' '"`
	}
	badMessageLines struct {
		I Inner `json:"i" crd:"rule='self.A != \"\"',message='A\nB'"`
	}
	badRuleLines struct {
		I Inner `json:"i" crd:"rule='self.A != \"\" &&\nself.A != \"x\"'"`
	}
	badDefaultBelow struct {
		N int32 `json:"n,omitempty" crd:"minimum=1,default=0"`
	}
	badDefaultMultiple struct {
		N float64 `json:"n,omitempty" crd:"multipleOf=0.5,default=0.7"`
	}
	badDefaultPattern struct {
		S string `json:"s,omitempty" crd:"pattern='^[a-z]+$',default=ABC"`
	}
	badDefaultLength struct {
		S string `json:"s,omitempty" crd:"maxLength=2,default=abc"`
	}
	badDefaultEnum struct {
		S string `json:"s,omitempty" crd:"enum=red;green,default=blue"`
	}
	badFormat struct {
		S string `json:"s" crd:"format=bogus"`
	}
	badIntFormat struct {
		N int `json:"n" crd:"format=double"`
	}
	badNumberFormat struct {
		N float64 `json:"n" crd:"format=int64"`
	}
	badBoolFormat struct {
		B bool `json:"b" crd:"format=byte"`
	}
	badColumnFormat struct {
		N int `json:"n" crd:"printColumn=N,printColumnFormat=bogus"`
	}
	promotedBad struct{ badPattern }
)

func TestForRefusesTagsTheServerRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  func() error
		want string
	}{
		{"invalid pattern", forSpec[badPattern], ".spec.s: crd tag of crd.badPattern.S: pattern=((: not a regular expression kube-apiserver takes"},
		{"invalid pattern pushed to items", forSpec[badPatternInItems], ".spec.s[*]: crd tag of crd.badPatternInItems.S: pattern=a{2,1}: not a regular expression"},
		{"minimum above maximum", forSpec[badBounds], ".spec.n: crd tag of crd.badBounds.N: minimum=10 is above maximum=1: no value fits"},
		{"exclusive bound equal to the other", forSpec[badExclusive], ".spec.n: crd tag of crd.badExclusive.N: minimum=1 and maximum=1, one exclusive: no value fits"},
		{"maximum below an unsigned type's minimum", forSpec[badUnsignedMax], "crd tag of crd.badUnsignedMax.N: minimum=0 is above maximum=-1"},
		{"minLength above maxLength", forSpec[badLengths], ".spec.s: crd tag of crd.badLengths.S: minLength=5 is above maxLength=2"},
		{"minItems above maxItems", forSpec[badItems], ".spec.l: crd tag of crd.badItems.L: minItems=3 is above maxItems=2"},
		{"minProperties above maxProperties", forSpec[badProperties], ".spec.m: crd tag of crd.badProperties.M: minProperties=3 is above maxProperties=2"},
		{"unknown type", forSpec[badType], ".spec.c: crd tag of crd.badType.C: type=bogus: want string, integer, number, boolean or object"},
		{"array type without items", forSpec[badTypeArray], ".spec.c: crd tag of crd.badTypeArray.C: type=array: an array needs items"},
		{"multipleOf zero", forSpec[badMultipleOf], ".spec.n: crd tag of crd.badMultipleOf.N: multipleOf=0: want a number above 0"},
		{"multipleOf negative", forSpec[badNegMultipleOf], "crd tag of crd.badNegMultipleOf.N: multipleOf=-2: want a number above 0"},
		{"empty rule", forSpec[badEmptyRule], ".spec.i: crd tag of crd.badEmptyRule.I: rule=: empty"},
		{"blank rule", forSpec[badBlankRule], ".spec.i: crd tag of crd.badBlankRule.I: rule= : empty"},
		{"blank message", forSpec[badBlankMessage], `.spec.i: crd tag of crd.badBlankMessage.I: message= : blank`},
		{"message of several lines", forSpec[badMessageLines], ".spec.i: crd tag of crd.badMessageLines.I: message=A\nB: holds a line break"},
		{"rule of several lines without a message", forSpec[badRuleLines], ".spec.i: crd tag of crd.badRuleLines.I: rule=...: a rule of several lines needs a message"},
		{"default below minimum", forSpec[badDefaultBelow], ".spec.n: crd tag of crd.badDefaultBelow.N: default=0 is below minimum=1"},
		{"default not a multiple", forSpec[badDefaultMultiple], ".spec.n: crd tag of crd.badDefaultMultiple.N: default=0.7 is not a multiple of multipleOf=0.5"},
		{"default not matching pattern", forSpec[badDefaultPattern], ".spec.s: crd tag of crd.badDefaultPattern.S: default=ABC does not match pattern=^[a-z]+$"},
		{"default longer than maxLength", forSpec[badDefaultLength], ".spec.s: crd tag of crd.badDefaultLength.S: default=abc is longer than maxLength=2"},
		{"default not in enum", forSpec[badDefaultEnum], ".spec.s: crd tag of crd.badDefaultEnum.S: default=blue is not in enum=red;green"},
		{"unknown string format", forSpec[badFormat], ".spec.s: crd tag of crd.badFormat.S: format=bogus: kube-apiserver knows no such format of a string"},
		{"string format on an integer", forSpec[badIntFormat], "crd tag of crd.badIntFormat.N: format=double: kube-apiserver knows no such format of an integer (it knows int32, int64)"},
		{"integer format on a number", forSpec[badNumberFormat], "crd tag of crd.badNumberFormat.N: format=int64: kube-apiserver knows no such format of a number (it knows float, double)"},
		{"format on a boolean", forSpec[badBoolFormat], "crd tag of crd.badBoolFormat.B: format=byte: kube-apiserver knows no format of a boolean"},
		{"unknown printer column format", forSpec[badColumnFormat], ".spec.n: crd tag of crd.badColumnFormat.N: printColumnFormat=bogus: want int32, int64, float, double, byte, date, date-time or password"},
		{"tag of a promoted field", forSpec[promotedBad], ".spec.s: crd tag of crd.badPattern.S: pattern=((:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("For = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// Tags kube-apiserver takes are kept: formats it knows, spelled as it
// compares them (without dashes) or as OpenAPI writes them, bounds one
// value fits, defaults that fit (a length counts characters).
type goodTags struct {
	Date   string           `json:"date" crd:"format=date-time"`
	Date2  string           `json:"date2" crd:"format=datetime"`
	Name   string           `json:"name" crd:"format=k8s-short-name"`
	UUID   string           `json:"uuid" crd:"format=uuid4"`
	Int    int              `json:"int" crd:"format=int32"`
	Num    float64          `json:"num" crd:"format=double"`
	Port   kube.IntOrString `json:"port" crd:"format=hostname"`
	Bounds int              `json:"bounds" crd:"minimum=1,maximum=1,multipleOf=0.5,rule='self == 1'"`
	Def    float64          `json:"def,omitempty" crd:"minimum=0,exclusiveMinimum,maximum=1,multipleOf=0.25,default=0.75,enum=0.5;0.75"`
	DefS   string           `json:"defS,omitempty" crd:"minLength=2,maxLength=3,pattern='^[a-zé]+$',default=éé"`
	Tenths float64          `json:"tenths,omitempty" crd:"multipleOf=0.01,default=0.07"`
}

func TestForKeepsTagsTheServerTakes(t *testing.T) {
	if err := forSpec[goodTags](); err != nil {
		t.Errorf("For = %v, want no error", err)
	}
}
