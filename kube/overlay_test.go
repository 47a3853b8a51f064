// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// The Go types of the overlay's table: each declares part of what the
// stored objects hold.
type (
	overlaySpec struct {
		Size       int               `json:"size"`
		Note       string            `json:"note,omitempty"`
		Labels     map[string]string `json:"labels,omitempty"`
		Extra      map[string]any    `json:"extra,omitempty"`
		Raw        json.RawMessage   `json:"raw,omitempty"`
		When       Time              `json:"when,omitzero"`
		Port       *IntOrString      `json:"port,omitempty"`
		Tags       []string          `json:"tags,omitempty"`
		Containers []overlayItem     `json:"containers,omitempty"`
		Ports      []overlayPort     `json:"ports,omitempty"`
		ByName     map[string]overlayItem
		Inner      *overlayInner `json:"inner,omitempty"`
	}
	overlayItem struct {
		Name  string `json:"name"`
		Image string `json:"image,omitempty"`
	}
	overlayPort struct {
		Port int `json:"port"`
	}
	overlayInner struct {
		overlayEmbedded
		A string `json:"a,omitempty"`
	}
	overlayEmbedded struct {
		B string `json:"b,omitempty"`
	}
	overlayObject struct {
		TypeMeta
		ObjectMeta `json:"metadata"`
		Spec       overlaySpec `json:"spec"`
	}
)

// overlay lays what a type declares over the stored object and keeps
// the rest; lists of partial structs go whole, element by element where
// they line up, or are refused with the paths they would lose.
func TestOverlay(t *testing.T) {
	for _, tc := range []struct {
		name, sent, stored, want string
		lost                     []string
	}{
		{"undeclared keys kept, declared taken",
			`{"spec":{"size":2}}`, `{"spec":{"size":1,"color":"red"},"status":{"x":1}}`,
			`{"spec":{"color":"red","size":2},"status":{"x":1}}`, nil},
		{"a declared field left out is removed",
			`{"spec":{"size":0}}`, `{"spec":{"size":1,"note":"n","labels":{"a":"b"},"tags":["t"]}}`,
			`{"spec":{"size":0}}`, nil},
		{"maps, interfaces, raw JSON and types that encode themselves go whole",
			`{"spec":{"size":1,"labels":{"b":"2"},"extra":{"y":1},"raw":{"r":2},"when":"2026-01-01T00:00:00Z","port":"http"}}`,
			`{"spec":{"size":1,"labels":{"a":"1"},"extra":{"x":1},"raw":{"q":1},"when":"2025-01-01T00:00:00Z","port":80}}`,
			`{"spec":{"extra":{"y":1},"labels":{"b":"2"},"port":"http","raw":{"r":2},"size":1,"when":"2026-01-01T00:00:00Z"}}`, nil},
		{"numbers kept as written",
			`{"spec":{"size":1}}`, `{"spec":{"size":1,"big":12345678901234567890,"f":1.50}}`,
			`{"spec":{"big":12345678901234567890,"f":1.50,"size":1}}`, nil},
		{"nested and embedded structs keep their undeclared keys",
			`{"spec":{"size":1,"inner":{"b":"2","a":"1"}}}`, `{"spec":{"size":1,"inner":{"b":"1","c":"3"}}}`,
			`{"spec":{"inner":{"a":"1","b":"2","c":"3"},"size":1}}`, nil},
		{"a map of structs keeps each value's undeclared keys and drops the keys sent leaves out",
			`{"spec":{"size":1,"ByName":{"x":{"name":"x","image":"j"},"z":{"name":"z"}}}}`,
			`{"spec":{"size":1,"ByName":{"x":{"name":"x","cpu":1},"y":{"name":"y"}}}}`,
			`{"spec":{"ByName":{"x":{"cpu":1,"image":"j","name":"x"},"z":{"name":"z"}},"size":1}}`, nil},
		{"a list whose stored elements hold nothing undeclared goes whole",
			`{"spec":{"size":1,"containers":[{"name":"b"}],"tags":["x"]}}`, `{"spec":{"size":1,"containers":[{"name":"a","image":"i"}],"tags":["y","z"]}}`,
			`{"spec":{"containers":[{"name":"b"}],"size":1,"tags":["x"]}}`, nil},
		{"a list that lines up by name is laid element by element",
			`{"spec":{"size":1,"containers":[{"name":"a","image":"j"},{"name":"b"}]}}`,
			`{"spec":{"size":1,"containers":[{"name":"a","image":"i","cpu":1},{"name":"b","cpu":2}]}}`,
			`{"spec":{"containers":[{"cpu":1,"image":"j","name":"a"},{"cpu":2,"name":"b"}],"size":1}}`, nil},
		{"a list of nameless elements lines up by length",
			`{"spec":{"size":1,"ports":[{"port":81}]}}`, `{"spec":{"size":1,"ports":[{"port":80,"protocol":"TCP"}]}}`,
			`{"spec":{"ports":[{"port":81,"protocol":"TCP"}],"size":1}}`, nil},
		{"a list reordered is refused",
			`{"spec":{"size":1,"containers":[{"name":"b"},{"name":"a"}]}}`,
			`{"spec":{"size":1,"containers":[{"name":"a","cpu":1},{"name":"b"}]}}`,
			"", []string{"spec.containers[0].cpu"}},
		{"a list grown is refused, naming every field lost",
			`{"spec":{"size":1,"ports":[{"port":80},{"port":81}]}}`,
			`{"spec":{"size":1,"ports":[{"port":80,"protocol":"TCP","x":{"y":1}}]}}`,
			"", []string{"spec.ports[0].protocol", "spec.ports[0].x"}},
		{"a value the stored object lacks is taken",
			`{"spec":{"size":1,"inner":{"a":"1"}}}`, `{"spec":null}`,
			`{"spec":{"inner":{"a":"1"},"size":1}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jd := jsondec.New(jsondec.Options{UseNumber: true})
			var sent, stored any
			if err := jd.Unmarshal([]byte(tc.sent), &sent); err != nil {
				t.Fatal(err)
			}
			if err := jd.Unmarshal([]byte(tc.stored), &stored); err != nil {
				t.Fatal(err)
			}
			o := overlay{fields: jd.Fields}
			got, err := json.Marshal(o.lay(sent, stored, reflect.TypeFor[*overlayObject](), ""))
			if err != nil {
				t.Fatal(err)
			}
			var lost *UndeclaredFieldsError
			if err := o.errLost(); tc.lost != nil {
				if !errors.As(err, &lost) || !slices.Equal(lost.Paths, tc.lost) {
					t.Errorf("overlay lost %v, want %q", err, tc.lost)
				}
				return
			} else if err != nil {
				t.Errorf("overlay lost %v, want nothing", err)
			}
			if string(got) != tc.want {
				t.Errorf("overlay =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// The types that hold everything are written without a read.
func TestHoldsAll(t *testing.T) {
	for _, tc := range []struct {
		obj  Object
		want bool
	}{
		{&Unstructured{}, true},
		{&ConfigMap{}, true},
		{&Secret{}, true},
		{&Lease{}, true},
		{&Scale{}, true},
		{&Namespace{}, false},
		{&Event{}, false},
		{&PartialObjectMetadata{}, false},
		{&overlayObject{}, false},
	} {
		if got := holdsAll(tc.obj); got != tc.want {
			t.Errorf("holdsAll(%T) = %v, want %v", tc.obj, got, tc.want)
		}
	}
}
