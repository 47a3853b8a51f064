// SPDX-License-Identifier: Apache-2.0

package jsondec_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/internal/exactjson"
	"github.com/kubeloop/kubeloop/internal/jsondec"
	"github.com/kubeloop/kubeloop/kube"
)

// pod is a Pod with the fields a controller reads, among them fields of
// types with their own UnmarshalJSON (IntOrString, Time).
type pod struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            podSpec   `json:"spec"`
	Status          podStatus `json:"status,omitempty"`
}

type podSpec struct {
	Containers            []container                 `json:"containers"`
	NodeName              string                      `json:"nodeName,omitempty"`
	Priority              *int32                      `json:"priority,omitempty"`
	ActiveDeadlineSeconds *int64                      `json:"activeDeadlineSeconds,omitempty"`
	NodeSelector          map[string]string           `json:"nodeSelector,omitempty"`
	Tolerations           []map[string]any            `json:"tolerations,omitempty"`
	Overhead              map[string]kube.IntOrString `json:"overhead,omitempty"`
	HostNetwork           bool                        `json:"hostNetwork,omitempty"`
}

type container struct {
	Name      string           `json:"name"`
	Image     string           `json:"image"`
	Args      []string         `json:"args,omitempty"`
	Ports     []containerPort  `json:"ports,omitempty"`
	Resources map[string]any   `json:"resources,omitempty"`
	Port      kube.IntOrString `json:"port,omitzero"`
}

type containerPort struct {
	ContainerPort int32  `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
}

type podStatus struct {
	Phase      string           `json:"phase,omitempty"`
	Conditions []kube.Condition `json:"conditions,omitempty"`
	StartTime  *kube.Time       `json:"startTime,omitempty"`
	PodIP      string           `json:"podIP,omitempty"`
	Score      float32          `json:"score,omitempty"`
	Ratio      float64          `json:"ratio,omitempty"`
	Restarts   uint8            `json:"restarts,omitempty"`
}

// widget is a custom resource.
type widget struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            struct {
		Replicas *int32            `json:"replicas"`
		Selector map[string]string `json:"selector"`
		Template json.RawMessage   `json:"template"`
		Config   map[string]any    `json:"config"`
		Weights  []float64         `json:"weights"`
	} `json:"spec"`
	Status struct {
		ObservedGeneration int64            `json:"observedGeneration"`
		Conditions         []kube.Condition `json:"conditions"`
	} `json:"status"`
}

// odd holds what kube's types do not: conflicting embedded names, tags
// that drop or rename, options, types left to Options.Fallback.
type odd struct {
	A     int `json:"a"`
	Inner     // its A loses to odd.A; B and E meet Inner2's
	Inner2
	*Other      // promoted through a pointer
	*hidden     // exported fields, but an unexported pointer to set
	Skip    int `json:"-"`
	Dash    int `json:"-,"`
	Num     json.Number
	Raw     json.RawMessage
	IP      net.IP // an encoding.TextUnmarshaler
	Arr     [2]int
	Bytes   []byte
	IntKeys map[int]string
	UintKey map[uint8]int
	TextKey map[netip.Addr]int
	TimeKey map[time.Time]int // the key has UnmarshalJSON: Options.Fallback
	Addr    netip.Addr
	Named   map[key]uint16
	Str     fmtStringer
	Any     any
	PP      **int8
	Ptrs    []*string
	private int
	Ünï     string
	Upper   string `json:"UPPER"`
}

// quoted has a ",string" field, which no plan serves: it goes whole to
// Options.Fallback.
type quoted struct {
	Quoted int `json:",string"`
	Name   string
}

type Inner struct {
	A int `json:"a"`
	B string
	E int
}

type Inner2 struct {
	B string // as Inner.B, at the same depth: neither is decoded
	X int    `json:"E"` // tagged: wins over Inner.E
}

type Other struct{ C []int }

type hidden struct{ H string }

type key string

type fmtStringer interface{ String() string }

// targets are the types every input is decoded into.
var targets = []func() any{
	func() any { return new(kube.ConfigMap) },
	func() any { return new(kube.Secret) },
	func() any { return new(kube.Lease) },
	func() any { return new(kube.Event) },
	func() any { return new(kube.Unstructured) },
	func() any { return new(kube.PartialObjectMetadata) },
	func() any { return new(kube.Status) },
	func() any { return new(pod) },
	func() any { return new(widget) },
	func() any { return new(odd) },
	func() any { return new(quoted) },
	func() any { return new(any) },
	func() any { return new(map[string]any) },
	func() any { return new([]string) },
	func() any { return new(*int) },
	func() any { return new(string) },
}

// checkSame decodes data into a fresh value of each target with dec and
// with exactjson.Unmarshal (json.Unmarshal with keys matched exactly) and
// fails unless both fail or both give equal values.
func checkSame(t *testing.T, dec *jsondec.Decoder, data []byte) {
	t.Helper()
	for _, newV := range targets {
		got, want := newV(), newV()
		gotErr := dec.Unmarshal(data, got)
		wantErr := exactjson.Unmarshal(data, want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("Unmarshal(%q) into %T: error %v, exactjson.Unmarshal: %v", data, got, gotErr, wantErr)
		}
		if gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("Unmarshal(%q) into %T =\n%#v\nexactjson.Unmarshal gives\n%#v", data, got, got, want)
		}
	}
}

// FuzzOracle holds Decoder.Unmarshal to exactjson.Unmarshal's results over
// kube's types and others, seeded with the server's answers captured in
// kube/testdata/wire (and /work/shared/wire when present).
func FuzzOracle(f *testing.F) {
	for _, s := range wireSeeds(f) {
		f.Add(s)
	}
	for _, s := range edgeCases {
		f.Add([]byte(s))
	}
	dec := jsondec.New(jsondec.Options{Fallback: exactjson.Unmarshal})
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSame(t, dec, data)
	})
}

// wireSeeds returns the JSON bodies of the captured answers: each
// object, each list item and each watch event's object.
func wireSeeds(tb testing.TB) [][]byte {
	var files []string
	for _, dir := range []string{"../../kube/testdata/wire", "/work/shared/wire"} {
		m, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
		files = append(files, m...)
	}
	var seeds [][]byte
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		_, body, ok := bytes.Cut(b, []byte("\n\n"))
		if !ok {
			_, body, _ = bytes.Cut(b, []byte("\r\n\r\n"))
		}
		if json.Valid(body) {
			seeds = append(seeds, body)
			var list struct{ Items []json.RawMessage }
			if json.Unmarshal(body, &list) == nil {
				for _, it := range list.Items {
					seeds = append(seeds, it)
				}
			}
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev struct{ Object json.RawMessage }
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Object != nil {
				seeds = append(seeds, bytes.Clone(sc.Bytes()), ev.Object)
			}
		}
	}
	return seeds
}

func TestWireSame(t *testing.T) {
	seeds := wireSeeds(t)
	if len(seeds) < 20 {
		t.Fatalf("found %d captured bodies, want at least 20", len(seeds))
	}
	dec := jsondec.New(jsondec.Options{Fallback: exactjson.Unmarshal})
	for _, s := range seeds {
		checkSame(t, dec, s)
	}
}
