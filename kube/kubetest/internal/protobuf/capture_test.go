// SPDX-License-Identifier: Apache-2.0

package protobuf

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// TestDecodesRealServerBytes reads what kube-apiserver 1.36.3 answered in
// protobuf (testdata/NAME.pb: a Namespace, a LeaseList, a 404 Status) and
// checks it decodes to what the same server answered in JSON to the same
// request (testdata/NAME.json, captured right after), so that the layout
// of protobuf.json and the decoder agree with the real encoder.
func TestDecodesRealServerBytes(t *testing.T) {
	for _, name := range []string{"namespace", "leases", "notfound"} {
		pb, err := os.ReadFile("testdata/" + name + ".pb")
		if err != nil {
			t.Fatal(err)
		}
		js, err := os.ReadFile("testdata/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := DecodeObject(pb)
		if !ok || err != nil {
			t.Fatalf("%s: decode: ok=%v %v", name, ok, err)
		}
		var want any
		if err := unstructured.DecodeExact(js, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Errorf("%s: protobuf decodes to\n%s\nJSON is\n%s", name, g, w)
		}
	}
}

// TestReadsRealWatchFrame reads a protobuf watch kube-apiserver 1.36.3
// wrote (testdata/watch.pb, one ADDED event) as watchFrame writes one:
// a 4-byte big-endian length and a WatchEvent whose object is a protobuf
// body; it decodes to the JSON watch's event (testdata/watch.json), and
// watchFrame turns that JSON event into a frame DecodeWatchEvent reads
// back the same.
func TestReadsRealWatchFrame(t *testing.T) {
	pb, err := os.ReadFile("testdata/watch.pb")
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile("testdata/watch.json")
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := unstructured.DecodeExact(js, &want); err != nil {
		t.Fatal(err)
	}
	for what, frame := range map[string][]byte{"real": pb, "kubetest": watchFrame(js)} {
		if n := int(binary.BigEndian.Uint32(frame)); n != len(frame)-4 {
			t.Fatalf("%s: frame length %d of %d bytes", what, n, len(frame)-4)
		}
		typ, o, err := DecodeWatchEvent(frame[4:])
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := (obj{"type": typ, "object": o}); !reflect.DeepEqual(got, want) {
			t.Errorf("%s frame decodes to %v, want %v", what, got, want)
		}
	}
}
