// SPDX-License-Identifier: Apache-2.0

package jsondec_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/internal/exactjson"
	"github.com/kubeloop/kubeloop/internal/jsondec"
	"github.com/kubeloop/kubeloop/kube"
)

// edgeCases are inputs where a decoder is easily wrong; each is decoded
// into every target and compared with exactjson.Unmarshal (TestEdgeCases), and
// each seeds the fuzzer.
var edgeCases = []string{
	``, ` `, `null`, ` null `, `nul`, `nullx`, `true`, `tru`, `false`, `0`, `-0`, `-`, `01`, `1.`, `1.5e`, `1e+`, `1E-2`,
	`"x"`, `"`, `"\`, `"\u12"`, `"\x"`, "\"\x01\"", `"\/\b\f\n\r\t\"\\"`,
	`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, `"\ud83dx"`, `"\ud83d\n"`, `"\uFFFD"`,
	"\"\xff\xfe\"", "\"\xe2\x82\"", "\"\xed\xa0\x80\"", "\"ok\xc3\xa9\"",
	`{}`, `{`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,}`, `{,}`, `{"a" 1}`, `{"a":1}}`, `{"a":1} x`, `{} {}`,
	`[]`, `[`, `[1,]`, `[,1]`, `[1 2]`, `[[[]]]`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	`{"metadata":{"name":"n","namespace":"ns","labels":{"app":"x","a":null},"annotations":{"k":"v"}},"data":{"k":"v"}}`,
	`{"metadata":{"labels":{"app":1}}}`,
	`{"metadata":{"labels":{"app":{}}}}`,
	`{"metadata":null,"data":null,"binaryData":null,"immutable":null}`,
	`{"METADATA":{"NAME":"n","Namespace":"ns"},"Data":{"k":"v"},"dAtA":{"j":"w"}}`,
	`{"metadata":{"na\u006de":"n","\u006eamespace":"ns"}}`,
	`{"metadata":{"name":"a"},"metadata":{"namespace":"b"}}`,
	`{"metadata":{"finalizers":["a","b","c"]},"metadata":{"finalizers":["d"]}}`,
	`{"metadata":{"ownerReferences":[{"name":"a","uid":"u"},{"name":"b"}]},"metadata":{"ownerReferences":[{"name":"c"}]}}`,
	`{"metadata":{"generation":9223372036854775807,"deletionGracePeriodSeconds":-9223372036854775808}}`,
	`{"metadata":{"generation":9223372036854775808}}`,
	`{"metadata":{"generation":1.0}}`, `{"metadata":{"generation":1e2}}`, `{"metadata":{"generation":"1"}}`,
	`{"metadata":{"creationTimestamp":"2026-11-21T04:48:10Z","deletionTimestamp":null}}`,
	`{"metadata":{"creationTimestamp":null,"deletionTimestamp":"2026-11-21T04:48:10Z"}}`,
	`{"metadata":{"creationTimestamp":"bad"}}`, `{"metadata":{"creationTimestamp":1}}`,
	`{"metadata":{"managedFields":null}}`, `{"metadata":{"managedFields":[{"a":{"b":[1,2]}}]}}`,
	`{"metadata":{"managedFields":[}}`,
	`{"binaryData":{"k":"aGVsbG8="}}`, `{"binaryData":{"k":"!!"}}`, `{"binaryData":{"k":[1,2,300]}}`, `{"binaryData":{"k":[1,2]}}`,
	`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"},"spec":{"replicas":3,"x":[1,"a",null,true,{"y":1e400}]}}`,
	`{"spec":{"x":1e400}}`, `{"spec":{"x":-0}}`, `{"spec":{"x":-0.0}}`, `{"spec":{"x":12345678901234567890}}`,
	`{"kind":5}`, `{"kind":null,"kind":"K"}`, `{"kind":"K","kind":null}`, `{"metadata":5,"metadata":{"name":"n"}}`,
	`{"Kind":"K","apiVersion":"v1"}`, `{"metadata":{"name":"n"},"metadata":null}`,
	`{"spec":{"containers":[{"name":"c","port":8080},{"port":"http"},{"port":1.5}],"priority":7,"overhead":{"cpu":"1","m":2}}}`,
	`{"spec":{"containers":[{"ports":[{"containerPort":2147483648}]}]}}`,
	`{"status":{"score":3.5e38,"ratio":1e308,"restarts":255,"startTime":"2026-11-21T04:48:10Z"}}`,
	`{"status":{"score":3.5e39}}`, `{"status":{"restarts":256}}`, `{"status":{"restarts":-1}}`,
	`{"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-11-21T04:48:10Z"}]}}`,
	`{"spec":{"template":{"a":[1,2]},"template":null,"replicas":null,"weights":[1,2.5,-3e-2]}}`,
	`{"a":1,"B":"b","C":[1],"H":"h"}`, `{"B":"b","E":1,"X":2,"e":3}`, `{"H":"h"}`, `{"-":1,"Skip":2,"Dash":3}`,
	`{"Quoted":"12"}`, `{"Quoted":12}`, `{"Num":12.5}`, `{"Num":"x"}`, `{"Raw":  [1, 2] }`, `{"IP":"10.0.0.1"}`, `{"IP":"x"}`, `{"IP":1}`,
	`{"Arr":[1,2,3]}`, `{"Arr":[1]}`, `{"Bytes":"AAE="}`, `{"Bytes":[0,1]}`, `{"IntKeys":{"1":"a","x":"b"}}`, `{"IntKeys":{"-1":"a","01":"b"}}`, `{"UintKey":{"255":1}}`, `{"UintKey":{"256":1}}`,
	`{"TextKey":{"10.0.0.1":1,"::1":2}}`, `{"TextKey":{"x":1}}`, `{"TimeKey":{"2026-11-21T04:48:10Z":1}}`, `{"TimeKey":{"x":1}}`,
	`{"Addr":"10.0.0.1"}`, `{"Addr":null}`, `{"Addr":"x"}`, `{"Addr":{}}`, `{"Addr":[]}`, `{"Addr":1}`, `{"IP":null}`, `{"IP":[1]}`,
	`{"Num":"12"}`, `{"Num":"-"}`, `{"Num":null}`, `{"Num":true}`, `{"Str":{}}`, `{"Str":1}`, `{"Named":{"k":1}}`,
	`{"Str":null}`, `{"Str":"s"}`, `{"Any":{"a":[]}}`, `{"PP":1}`, `{"PP":null}`, `{"Ptrs":["a",null]}`, `{"private":1}`,
	`{"ünï":"x"}`, `{"ÜNÏ":"x"}`, `{"upper":"x"}`, `{"ſ":1}`, `{"K":1,"k":2}`,
	`{"a":1, "a" : 2 ,"c":[ 1 , 2 ]}`, "\t\n\r {\"a\"\n:\r1}\t",
}

func TestEdgeCases(t *testing.T) {
	dec := jsondec.New(jsondec.Options{Fallback: exactjson.Unmarshal})
	for _, s := range edgeCases {
		checkSame(t, dec, []byte(s))
	}
}

// TestErrors checks that errors name the path, the Go type and the kind
// of JSON met, and quote no value.
func TestErrors(t *testing.T) {
	dec := jsondec.New(jsondec.Options{Fallback: exactjson.Unmarshal})
	for _, tc := range []struct {
		in       string
		path     string
		typ      string
		contains string
	}{
		{`{"metadata":{"labels":{"app":1234}}}`, ".metadata.labels.app", "string", "cannot decode a JSON number at .metadata.labels.app"},
		{`{"metadata":{"generation":1234.5}}`, ".metadata.generation", "int64", "number out of range"},
		{`{"metadata":{"ownerReferences":[{},{"name":1234}]}}`, ".metadata.ownerReferences[1].name", "string", "into string"},
		{`{"binaryData":{"k":"12!4"}}`, ".binaryData.k", "[]uint8", "illegal base64"},
		{`{"metadata":{"creationTimestamp":1234}}`, ".metadata.creationTimestamp", "kube.Time", "decode kube.Time"},
		{`{"metadata":{"name":"x1234"`, ".metadata", "", "invalid JSON at .metadata (offset 27): unexpected end of input"},
		{`{"data":{"k":"v"}} 1234`, "", "", "invalid JSON at offset 19: data after the value"},
	} {
		var cm kube.ConfigMap
		err := dec.Unmarshal([]byte(tc.in), &cm)
		var e *jsondec.Error
		if !errors.As(err, &e) {
			t.Fatalf("Unmarshal(%q) = %v, want a *jsondec.Error", tc.in, err)
		}
		typ := ""
		if e.Type != nil {
			typ = e.Type.String()
		}
		if e.Path() != tc.path || typ != tc.typ || !strings.Contains(err.Error(), tc.contains) || strings.Contains(err.Error(), "1234") {
			t.Errorf("Unmarshal(%q) = %q (path %q, type %q), want path %q, type %q, text with %q and no value",
				tc.in, err, e.Path(), typ, tc.path, tc.typ, tc.contains)
		}
	}
}

// TestIntern checks that the chosen fields' strings, and only those, go
// through the hook.
func TestIntern(t *testing.T) {
	var seen []string
	dec := jsondec.New(jsondec.Options{
		Intern: func(b []byte) string { seen = append(seen, string(b)); return string(b) },
		InternField: func(owner reflect.Type, name string) bool {
			return owner == reflect.TypeFor[kube.ObjectMeta]() && (name == "namespace" || name == "labels" || name == "finalizers")
		},
	})
	var cm kube.ConfigMap
	in := `{"metadata":{"name":"n","namespace":"ns","labels":{"k":"v"},"finalizers":["f"],"annotations":{"a":"b"}},"data":{"d":"e"}}`
	if err := dec.Unmarshal([]byte(in), &cm); err != nil {
		t.Fatal(err)
	}
	if want := []string{"ns", "k", "v", "f"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("interned %q, want %q", seen, want)
	}
	if cm.Namespace != "ns" || cm.Labels["k"] != "v" || cm.Name != "n" || cm.Data["d"] != "e" {
		t.Errorf("decoded %+v", cm)
	}
}

func TestInvalidTarget(t *testing.T) {
	dec := jsondec.New(jsondec.Options{Fallback: exactjson.Unmarshal})
	var cm kube.ConfigMap
	for _, v := range []any{nil, cm, (*kube.ConfigMap)(nil)} {
		if err := dec.Unmarshal([]byte(`{}`), v); err == nil {
			t.Errorf("Unmarshal into %T = nil error, want one", v)
		}
	}
}

// TestObject: members come in order with their keys unescaped; a value
// left unread is skipped; a value of the wrong type fails alone, and the
// object's decoding goes on; invalid JSON ends it.
func TestObject(t *testing.T) {
	dec := jsondec.New(jsondec.Options{Fallback: exactjson.Unmarshal})
	type member struct {
		Key string
		Val any
		Err bool
	}
	for _, tc := range []struct {
		in      string
		members []member
		err     bool
	}{
		{`null`, nil, false},
		{` {} `, nil, false},
		{`{"a":1,"skip":{"x":[1,2]},"k\u0069nd":"K","b":"\ud83d\ude00 \n"}`,
			[]member{{"a", 1.0, false}, {"skip", nil, false}, {"kind", "K", false}, {"b", "\U0001F600 \n", false}}, false},
		{`{"kind":5,"a":[1,{"b":2}]}`, []member{{"kind", "", true}, {"a", []any{1.0, map[string]any{"b": 2.0}}, false}}, false},
		{`{"kind":{"deep":[1,2,{"x":"y"}]},"a":true}`, []member{{"kind", "", true}, {"a", true, false}}, false},
		{`{"a":1,"kind":[1,}`, []member{{"a", 1.0, false}, {"kind", "", true}}, true},
		{`[1]`, nil, true},
		{`"s"`, nil, true},
		{`{"a":1} x`, []member{{"a", 1.0, false}}, true},
	} {
		var got []member
		err := dec.Object([]byte(tc.in), func(key []byte, v *jsondec.Value) error {
			m := member{Key: string(key)}
			var err error
			switch m.Key {
			case "skip":
			case "kind":
				var s string
				err = v.Decode(&s)
				m.Val = s
			default:
				m.Val, err = v.Any()
			}
			if m.Key != string(key) {
				t.Errorf("Object(%q): key %q changed to %q while its value was read", tc.in, m.Key, key)
			}
			m.Err = err != nil
			got = append(got, m)
			var e *jsondec.Error
			if errors.As(err, &e) && e.Type == nil {
				return err
			}
			return nil
		})
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.members) {
			t.Errorf("Object(%q) = %v, members %+v; want error %v, members %+v", tc.in, err, got, tc.err, tc.members)
		}
	}
}

// TestNoFallback: without Options.Fallback, a value of a type no plan
// serves is an error that says so; the fields around it decode.
func TestNoFallback(t *testing.T) {
	dec := jsondec.New(jsondec.Options{})
	var v struct {
		A int
		Q struct {
			N int `json:",string"`
		}
	}
	err := dec.Unmarshal([]byte(`{"A":1,"Q":{"N":"2"}}`), &v)
	if err == nil || !strings.Contains(err.Error(), "Options.Fallback") || !strings.Contains(err.Error(), ".Q") || v.A != 1 {
		t.Errorf("Unmarshal = %v, A = %d; want an error naming .Q and Options.Fallback, A = 1", err, v.A)
	}
}

// TestConcurrent: goroutines decoding into types whose plans are not
// built yet share one Decoder (go test -race).
func TestConcurrent(t *testing.T) {
	dec := jsondec.New(jsondec.Options{Fallback: exactjson.Unmarshal})
	in := []byte(`{"metadata":{"name":"n","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","port":80}]},"data":{"k":"v"}}`)
	var wg sync.WaitGroup
	for range 8 {
		for _, newV := range targets {
			wg.Go(func() {
				got, want := newV(), newV()
				gotErr, wantErr := dec.Unmarshal(in, got), exactjson.Unmarshal(in, want)
				if (gotErr == nil) != (wantErr == nil) || gotErr == nil && !reflect.DeepEqual(got, want) {
					t.Errorf("Unmarshal into %T = %v, %v; exactjson.Unmarshal: %v, %v", got, got, gotErr, want, wantErr)
				}
			})
		}
	}
	wg.Wait()
}

// TestSkipField: a chosen field is checked but not built; the others
// decode as without the option.
func TestSkipField(t *testing.T) {
	dec := jsondec.New(jsondec.Options{SkipField: func(owner reflect.Type, name string) bool {
		return owner == reflect.TypeFor[kube.ObjectMeta]() && name == "managedFields"
	}})
	in := `{"metadata":{"name":"n","managedFields":[{"manager":"m","fieldsV1":{"f:data":{}}}],"labels":{"a":"b"}},"data":{"k":"v"}}`
	var got, want kube.ConfigMap
	if err := dec.Unmarshal([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	want.ManagedFields = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Unmarshal = %+v, want %+v", got, want)
	}
	if err := dec.Unmarshal([]byte(`{"metadata":{"managedFields":[}}`), &got); err == nil {
		t.Error("Unmarshal of a skipped field's invalid JSON = nil error, want one")
	}
}
