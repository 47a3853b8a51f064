// SPDX-License-Identifier: Apache-2.0

package jsondec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsondec"
	"github.com/kubeloop/kubeloop/kube"
)

// FuzzExtent: for valid JSON, Extent finds the end of the value where
// encoding/json does, and calls every proper prefix of it incomplete.
func FuzzExtent(f *testing.F) {
	for _, s := range edgeCases {
		f.Add([]byte(s))
	}
	for _, s := range wireSeeds(f)[:20] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		value := bytes.TrimRight(data, " \t\r\n")
		n, ok := jsondec.Extent(append(bytes.Clone(data), ','))
		if !ok || n != len(value) {
			t.Fatalf("Extent(%q + \",\") = %d, %v; want %d, true", data, n, ok, len(value))
		}
		for _, cut := range []int{0, 1, len(value) / 2, len(value) - 1} {
			if cut < 0 || cut >= len(value) {
				continue
			}
			if n, ok := jsondec.Extent(value[:cut]); ok {
				t.Fatalf("Extent(%q) = %d, true; want incomplete (a prefix of %q)", value[:cut], n, value)
			}
		}
	})
}

// BenchmarkListItems decodes the items of a list's body of 500
// ConfigMaps: as kube's ListEach does today (encoding/json's Decoder,
// token by token, then Decode, which scans each item to find its end and
// then decodes it), and as the next step would (Extent to find each
// item's end, then one pass of jsondec).
func BenchmarkListItems(b *testing.B) {
	var body bytes.Buffer
	body.WriteString(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[`)
	for i := range 500 {
		if i > 0 {
			body.WriteByte(',')
		}
		body.WriteString(configMapJSON(i))
	}
	body.WriteString(`]}`)
	data := body.Bytes()
	itemsAt := bytes.Index(data, []byte(`"items":[`)) + len(`"items":[`)
	dec := jsondec.New(jsondec.Options{})
	b.Run("dec=encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			d := json.NewDecoder(bytes.NewReader(data))
			for {
				tok, err := d.Token()
				if err != nil {
					b.Fatal(err)
				}
				if tok == "items" {
					break
				}
			}
			d.Token()
			n := 0
			for d.More() {
				var cm kube.ConfigMap
				if err := d.Decode(&cm); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != 500 {
				b.Fatal(n)
			}
		}
	})
	b.Run("dec=jsondec", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			rest, n := data[itemsAt:], 0
			for {
				rest = bytes.TrimLeft(rest, " \t\r\n,")
				if len(rest) == 0 || rest[0] == ']' {
					break
				}
				end, ok := jsondec.Extent(rest)
				if !ok {
					b.Fatal("incomplete item")
				}
				var cm kube.ConfigMap
				if err := dec.Unmarshal(rest[:end], &cm); err != nil {
					b.Fatal(err)
				}
				rest, n = rest[end:], n+1
			}
			if n != 500 {
				b.Fatal(n)
			}
		}
	})
}

func TestExtent(t *testing.T) {
	for _, tc := range []struct {
		in       string
		n        int
		complete bool
	}{
		{`{"a":"}\"]"},`, 12, true},
		{` [1,[2]] x`, 8, true},
		{`"a\\"b`, 5, true},
		{`"a\\\"b"`, 8, true},
		{`123,`, 3, true},
		{`123`, 0, false},
		{`{"a":[1,2]`, 0, false},
		{`"abc`, 0, false},
		{` `, 0, false},
		{strings.Repeat(`{"a":`, 3) + `1` + strings.Repeat(`}`, 3), 19, true},
	} {
		n, ok := jsondec.Extent([]byte(tc.in))
		if ok != tc.complete || ok && n != tc.n {
			t.Errorf("Extent(%q) = %d, %v; want %d, %v", tc.in, n, ok, tc.n, tc.complete)
		}
	}
}

func TestValidAndUnquoteAgreeWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`"a"`, ` "a\u00e9\n" `, `"\ud800"`, "\"\xff\"", `"a" x`, `"a`, `1`, `null`, `{"a":[1,2,{}]}`,
		`{"a":}`, `[1,]`, ``, `  `, `tru`, `"\x"`, "\"\x01\"", `{"a":1}{}`, `-`, `1e`, `01`,
	} {
		valid := jsondec.Valid([]byte(in)) == nil
		if want := json.Valid([]byte(in)); valid != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", in, valid, want)
		}
		got, err := jsondec.Unquote([]byte(in))
		var want string
		wantErr := json.Unmarshal([]byte(in), &want)
		if strings.TrimSpace(in) == "null" {
			wantErr = errors.New("null is no string") // Unquote refuses null; Unmarshal leaves the string
		}
		if (err != nil) != (wantErr != nil) || err == nil && got != want {
			t.Errorf("Unquote(%q) = %q, %v; encoding/json: %q, %v", in, got, err, want, wantErr)
		}
	}
}

func TestUseNumberAsEncodingJSON(t *testing.T) {
	in := []byte(`{"a":1,"b":[-0,1.5e300,12345678901234567890],"c":{"d":1e-7},"e":"1"}`)
	var want, got any
	d := json.NewDecoder(bytes.NewReader(in))
	d.UseNumber()
	if err := d.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if err := jsondec.New(jsondec.Options{UseNumber: true}).Unmarshal(in, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UseNumber: got %#v, want %#v", got, want)
	}
}
