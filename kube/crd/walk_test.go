// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"encoding/json"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// schemaOf returns the JSON of the schema of T as a field with the given
// crd tag.
func schemaOf[T any](t *testing.T, tag string) (string, error) {
	t.Helper()
	tg, err := parseTags(tag)
	if err != nil {
		return "", err
	}
	w := &walker{}
	s, err := w.fieldSchema(reflect.TypeFor[T](), tg, false, place{path: ".f"})
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), nil
}

type (
	Color string
	Inner struct{ A string }
	Named struct {
		Name string `json:"name"`
	}
	embeddedBase struct {
		Shared string `json:"shared"`
		Hidden string `json:"hidden,omitempty"`
	}
	Outer struct {
		embeddedBase
		*Named
		Inner `json:"inner,omitempty"`
		Color
		Hidden int    `json:"hidden,omitempty"` // shallower: wins over embeddedBase.Hidden
		Skip   string `json:"-"`
		Dash   string `json:"-,"`
		plain  string //nolint:unused // unexported: not encoded
		Count  int64  `json:"count,string"`
		Opt    *bool  `json:"opt,omitzero"`
		NoTag  bool
	}
	Textual struct{ v string }
	Custom  struct{}
	Node    struct {
		Name     string `json:"name"`
		Children []Node `json:"children,omitempty"`
	}
	NodeOK struct {
		Name     string   `json:"name"`
		Children []NodeOK `json:"children,omitempty" crd:"schemaless"`
	}
	Pair struct {
		Key   string `json:"key"`
		Value string `json:"value,omitempty"`
	}
	// Tags whose names encoding/json refuses, and so ignores.
	OddNames struct {
		Euro  string `json:"€uro"`
		Dash  string `json:"x—y"`
		Quote string `json:"a'b"`
		Fine  string `json:"é!"`
	}
)

func (t Textual) MarshalText() ([]byte, error) { return []byte(t.v), nil }
func (Custom) MarshalJSON() ([]byte, error)    { return []byte(`"x"`), nil }

// plain returns the schema of T without tags.
func plain[T any](t *testing.T) (string, error) { return schemaOf[T](t, "") }

func TestSchemaOfGoTypes(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  func(t *testing.T) (string, error)
		want string
	}{
		{"bool", plain[bool], `{"type":"boolean"}`},
		{"string", plain[string], `{"type":"string"}`},
		{"named string", plain[Color], `{"type":"string"}`},
		{"int", plain[int], `{"type":"integer"}`},
		{"int8", plain[int8], `{"type":"integer"}`},
		{"int32", plain[int32], `{"type":"integer","format":"int32"}`},
		{"int64", plain[int64], `{"type":"integer","format":"int64"}`},
		{"uint16", plain[uint16], `{"type":"integer","minimum":0}`},
		{"uint32", plain[uint32], `{"type":"integer","format":"int32","minimum":0}`},
		{"uint64", plain[uint64], `{"type":"integer","format":"int64","minimum":0}`},
		{"float32", plain[float32], `{"type":"number"}`},
		{"float64", plain[float64], `{"type":"number"}`},
		{"pointer", plain[**int32], `{"type":"integer","format":"int32"}`},
		{"bytes", plain[[]byte], `{"type":"string","format":"byte"}`},
		{"byte array", plain[[2]byte], `{"type":"array","maxItems":2,"minItems":2,"items":{"type":"integer","minimum":0}}`},
		{"slice", plain[[]string], `{"type":"array","items":{"type":"string"}}`},
		{"slice of slices", plain[[][]int64], `{"type":"array","items":{"type":"array","items":{"type":"integer","format":"int64"}}}`},
		{"map", plain[map[string]int32], `{"type":"object","additionalProperties":{"type":"integer","format":"int32"}}`},
		{"map with int keys", plain[map[int]bool], `{"type":"object","additionalProperties":{"type":"boolean"}}`},
		{"map of slices", plain[map[Color][]string], `{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}}`},
		{"any", plain[any], `{"x-kubernetes-preserve-unknown-fields":true}`},
		{"map of any", plain[map[string]any], `{"type":"object","x-kubernetes-preserve-unknown-fields":true}`},
		{"slice of any", plain[[]any], `{"type":"array","items":{"x-kubernetes-preserve-unknown-fields":true}}`},
		{"raw message", plain[json.RawMessage], `{"x-kubernetes-preserve-unknown-fields":true}`},
		{"json number", plain[json.Number], `{"type":"number"}`},
		{"kube.Time", plain[kube.Time], `{"type":"string","format":"date-time"}`},
		{"*kube.MicroTime", plain[*kube.MicroTime], `{"type":"string","format":"date-time"}`},
		{"time.Time", plain[time.Time], `{"type":"string","format":"date-time"}`},
		{"time.Duration", plain[time.Duration], `{"type":"integer","format":"int64"}`},
		{"text marshaler", plain[Textual], `{"type":"string"}`},
		{"net.IP", plain[net.IP], `{"type":"string"}`},
		{"int-or-string", plain[kube.IntOrString], `{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true}`},
		{"unstructured", plain[kube.Unstructured], `{"type":"object","x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-embedded-resource":true}`},
		{"empty struct", plain[struct{}], `{"type":"object"}`},
		{"struct", plain[Inner], `{"type":"object","properties":{"A":{"type":"string"}},"required":["A"]}`},
		{"encoding/json field rules", plain[Outer], `{"type":"object","properties":{` +
			`"-":{"type":"string"},"Color":{"type":"string"},"NoTag":{"type":"boolean"},` +
			`"count":{"type":"string"},"hidden":{"type":"integer"},` +
			`"inner":{"type":"object","properties":{"A":{"type":"string"}},"required":["A"]},` +
			`"name":{"type":"string"},"opt":{"type":"boolean"},"shared":{"type":"string"}},` +
			`"required":["shared","name","Color","-","count","NoTag"]}`},
		{"conditions", plain[[]kube.Condition], `{"type":"array","items":{"type":"object","properties":{` +
			`"lastTransitionTime":{"type":"string","format":"date-time"},` +
			`"message":{"type":"string","maxLength":32768},` +
			`"observedGeneration":{"type":"integer","format":"int64","minimum":0},` +
			`"reason":{"type":"string","maxLength":1024,"minLength":1,"pattern":"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"},` +
			`"status":{"type":"string","enum":["True","False","Unknown"]},` +
			`"type":{"type":"string","maxLength":316,"pattern":"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"}},` +
			`"required":["type","status","lastTransitionTime","reason","message"]},` +
			`"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["type"]}`},
		{"tag names encoding/json ignores", plain[OddNames], `{"type":"object","properties":{` +
			`"Dash":{"type":"string"},"Euro":{"type":"string"},"Quote":{"type":"string"},"é!":{"type":"string"}},` +
			`"required":["Euro","Dash","Quote","é!"]}`},
		{"schemaless recursion", plain[NodeOK], `{"type":"object","properties":{"children":{"x-kubernetes-preserve-unknown-fields":true},"name":{"type":"string"}},"required":["name"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got(t)
			if err != nil || got != tc.want {
				t.Errorf("schema = %s, %v\nwant     %s", got, err, tc.want)
			}
		})
	}
}

func TestSchemaTags(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  func(t *testing.T) (string, error)
		want string
	}{
		{"bounds", func(t *testing.T) (string, error) {
			return schemaOf[int32](t, "minimum=1,maximum=10,exclusiveMaximum,multipleOf=2")
		}, `{"type":"integer","format":"int32","maximum":10,"exclusiveMaximum":true,"minimum":1,"multipleOf":2}`},
		{"string", func(t *testing.T) (string, error) {
			return schemaOf[string](t, "minLength=1,maxLength=63,pattern='^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$',format=hostname")
		}, `{"type":"string","format":"hostname","maxLength":63,"minLength":1,"pattern":"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$"}`},
		{"quote in a quoted value", func(t *testing.T) (string, error) {
			return schemaOf[string](t, "description='it''s, well, fine'")
		}, `{"type":"string","description":"it's, well, fine"}`},
		{"typed enum and default", func(t *testing.T) (string, error) {
			return schemaOf[int](t, "enum=1;2;3,default=2")
		}, `{"type":"integer","default":2,"enum":[1,2,3]}`},
		{"string enum and default", func(t *testing.T) (string, error) {
			return schemaOf[Color](t, "enum=red;green,default=red")
		}, `{"type":"string","default":"red","enum":["red","green"]}`},
		{"object default", func(t *testing.T) (string, error) {
			return schemaOf[map[string]string](t, `default='{"a":"b"}'`)
		}, `{"type":"object","default":{"a":"b"},"additionalProperties":{"type":"string"}}`},
		{"values pushed to items", func(t *testing.T) (string, error) {
			return schemaOf[[]string](t, "maxItems=8,maxLength=63,listType=set")
		}, `{"type":"array","maxItems":8,"items":{"type":"string","maxLength":63},"x-kubernetes-list-type":"set"}`},
		{"values pushed to map values", func(t *testing.T) (string, error) { return schemaOf[map[string]int](t, "minimum=0,maxProperties=3") },
			`{"type":"object","maxProperties":3,"additionalProperties":{"type":"integer","minimum":0}}`},
		{"map list", func(t *testing.T) (string, error) { return schemaOf[[]Pair](t, "listType=map,listMapKey=key") },
			`{"type":"array","items":{"type":"object","properties":{"key":{"type":"string"},"value":{"type":"string"}},"required":["key"]},"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["key"]}`},
		{"nullable, preserve, map type", func(t *testing.T) (string, error) {
			return schemaOf[*Inner](t, "nullable,preserveUnknownFields,mapType=atomic")
		}, `{"type":"object","nullable":true,"properties":{"A":{"type":"string"}},"required":["A"],"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-map-type":"atomic"}`},
		{"type override", func(t *testing.T) (string, error) { return schemaOf[Custom](t, "type=string,format=byte") },
			`{"type":"string","format":"byte"}`},
		{"int-or-string tag and pattern", func(t *testing.T) (string, error) { return schemaOf[Custom](t, "intOrString,pattern='^[0-9]+%?$'") },
			`{"pattern":"^[0-9]+%?$","anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true}`},
		{"rules", func(t *testing.T) (string, error) {
			return schemaOf[Inner](t, "rule='self.A != ''x''',message='A must not be x, ever'")
		}, `{"type":"object","properties":{"A":{"type":"string"}},"required":["A"],"x-kubernetes-validations":[{"rule":"self.A != 'x'","message":"A must not be x, ever"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got(t)
			if err != nil || got != tc.want {
				t.Errorf("schema = %s, %v\nwant     %s", got, err, tc.want)
			}
		})
	}
}

func TestSchemaErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  func(t *testing.T) (string, error)
		want string
	}{
		{"recursive", func(t *testing.T) (string, error) { return schemaOf[Node](t, "") },
			".f.children[*]: recursive type crd.Node (crd.Node -> crd.Node): a CRD schema has no references"},
		{"channel", func(t *testing.T) (string, error) { return schemaOf[chan int](t, "") }, ".f: chan int cannot be encoded as JSON"},
		{"func in a map", func(t *testing.T) (string, error) { return schemaOf[map[string]func()](t, "") }, ".f[*]: func() cannot be encoded as JSON"},
		{"map key", func(t *testing.T) (string, error) { return schemaOf[map[Inner]string](t, "") }, ".f: map key type crd.Inner cannot be encoded as JSON"},
		{"own MarshalJSON", func(t *testing.T) (string, error) { return schemaOf[Custom](t, "") },
			`.f: crd.Custom has its own MarshalJSON, so its JSON shape is unknown here: tag the field with crd:"type=..."`},
		{"minimum on a string", func(t *testing.T) (string, error) { return schemaOf[string](t, "minimum=1") },
			".f: minimum, maximum and multipleOf need an integer or a number, not a string"},
		{"pattern on a struct", func(t *testing.T) (string, error) { return schemaOf[Inner](t, "pattern=x") },
			".f: minimum, maximum, multipleOf, minLength, maxLength, pattern, enum and format need a value, not an object"},
		{"maxItems on a map", func(t *testing.T) (string, error) { return schemaOf[map[string]string](t, "maxItems=1") },
			".f: minItems, maxItems and listType need an array, not an object"},
		{"bad enum", func(t *testing.T) (string, error) { return schemaOf[int](t, "enum=1;two") }, `.f: enum: "two" is not an integer`},
		{"bad default", func(t *testing.T) (string, error) { return schemaOf[[]string](t, "default=a") }, `.f: default: "a" is not JSON`},
		{"unknown key", func(t *testing.T) (string, error) { return schemaOf[int](t, "minimun=1") }, `unknown key "minimun"`},
		{"value missing", func(t *testing.T) (string, error) { return schemaOf[int](t, "minimum") }, "minimum needs a value"},
		{"value given", func(t *testing.T) (string, error) { return schemaOf[int](t, "optional=yes") }, "optional takes no value"},
		{"unterminated quote", func(t *testing.T) (string, error) { return schemaOf[string](t, "pattern='abc") }, "pattern: unterminated quote"},
		{"map list key missing", func(t *testing.T) (string, error) { return schemaOf[[]Pair](t, "listType=map,listMapKey=name") },
			`.f: listMapKey "name" is not a field of the items (they have key, value)`},
		{"map list key optional", func(t *testing.T) (string, error) { return schemaOf[[]Pair](t, "listType=map,listMapKey=value") },
			`.f: listMapKey "value" must be required (no omitempty) or have a default`},
		{"map list without keys", func(t *testing.T) (string, error) { return schemaOf[[]Pair](t, "listType=map") }, "listType=map needs listMapKey"},
		{"set of structs", func(t *testing.T) (string, error) { return schemaOf[[]Pair](t, "listType=set") }, ".f: listType=set needs scalar items"},
		{"exclusive without bound", func(t *testing.T) (string, error) { return schemaOf[int](t, "exclusiveMinimum") }, "need the minimum or maximum"},
		{"column in a list", func(t *testing.T) (string, error) {
			type row struct {
				N int `json:"n" crd:"printColumn=N"`
			}
			return schemaOf[[]row](t, "")
		}, ".f[*].n: crd tag of crd.row.N: printColumn cannot point into a list or map"},
		{"column of an object", func(t *testing.T) (string, error) { return schemaOf[Inner](t, "printColumn=X") },
			".f: printColumn needs a value kubectl can print"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got(t)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("schema = %s, error %v, want an error containing %q", got, err, tc.want)
			}
		})
	}
}
