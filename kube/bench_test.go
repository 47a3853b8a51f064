// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"
)

// configMapJSON is a ConfigMap as a real server sends it, managedFields
// included, with 1 KiB of data.
func configMapJSON(i int) string {
	return fmt.Sprintf(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-%05d","namespace":"default","uid":"5708e7b9-af1c-489e-afe6-%012d","resourceVersion":"%d","creationTimestamp":"2026-11-21T04:48:10Z","labels":{"app":"demo","idx":"%d"},"managedFields":[{"manager":"curl","operation":"Update","apiVersion":"v1","time":"2026-11-21T04:48:10Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:app":{},"f:idx":{}}}}}]},"data":{"k":"%s"}}`,
		i, i, 1000+i, i, bytes.Repeat([]byte("v"), 1024))
}

func BenchmarkDecodeList500(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9999"},"items":[`)
	for i := range 500 {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(configMapJSON(i))
	}
	buf.WriteString("]}")
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var list List[ConfigMap]
		if err := json.Unmarshal(data, &list); err != nil {
			b.Fatal(err)
		}
		if len(list.Items) != 500 {
			b.Fatal(len(list.Items))
		}
	}
}

func BenchmarkWatch10000(b *testing.B) {
	var buf bytes.Buffer
	for i := range 10000 {
		fmt.Fprintf(&buf, `{"type":"MODIFIED","object":%s}`+"\n", configMapJSON(i%500))
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		w := NewWatcher(io.NopCloser(bytes.NewReader(data)), nil)
		n := 0
		for {
			ev, err := w.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			var cm ConfigMap
			if err := ev.Decode(&cm); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 10000 {
			b.Fatal(n)
		}
	}
}
