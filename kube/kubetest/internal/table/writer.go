// SPDX-License-Identifier: Apache-2.0

package table

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file writes the Table form (Accept:
// application/json;as=Table;v=v1;g=meta.k8s.io, and v1beta1), which is
// what kubectl get asks for: the columns of the kind and one row of cells
// per object, each row carrying the object's metadata (includeObject=Metadata,
// the default), the whole object (Object) or nothing (None). Cells that
// show an age are computed when the answer is written, as the real server
// does.

// ParseInclude reads the includeObject option: "" is Metadata; an
// invalid value gives the message of the real server's 400.
func ParseInclude(v string) (include, invalid string) {
	switch v {
	case "":
		return "Metadata", ""
	case "Metadata", "Object", "None":
		return v, ""
	}
	return "", "Unable to convert to Table as requested: includeObject: Invalid value: " +
		strconv.Quote(v) + ": must be 'Metadata', 'Object', 'None', or empty"
}

// Writer writes Tables of one resource.
type Writer struct {
	// Version is the meta.k8s.io version of the Table: "v1" or "v1beta1".
	Version string
	// Include is the includeObject option: "Metadata", "Object" or "None".
	Include string
	// Printer prints the rows.
	Printer *Printer
	// Render turns a stored object into the object at the requested
	// version, JSON encoded.
	Render func(raw []byte) []byte
}

// APIVersion is the Table's apiVersion, also that of the
// PartialObjectMetadata of its rows.
func (tw *Writer) APIVersion() string { return "meta.k8s.io/" + tw.Version }

// Write appends a Table holding a row for each stored object in raws,
// with meta as its metadata; headers says whether the column definitions
// are written (every event of a watch but the first has none).
func (tw *Writer) Write(b *bytes.Buffer, meta kube.ListMeta, raws [][]byte, headers bool) {
	now := time.Now()
	m, _ := json.Marshal(meta)
	b.WriteString(`{"kind":"Table","apiVersion":`)
	encode.String(b, tw.APIVersion())
	b.WriteString(`,"metadata":`)
	b.Write(m)
	b.WriteString(`,"columnDefinitions":`)
	if headers {
		encode.Value(b, tw.Printer.Columns)
	} else {
		b.WriteString("null")
	}
	b.WriteString(`,"rows":`)
	if len(raws) == 0 && tw.Printer.NullRows {
		b.WriteString("null}")
		return
	}
	b.WriteByte('[')
	for i, raw := range raws {
		if i > 0 {
			b.WriteByte(',')
		}
		tw.writeRow(b, tw.Render(raw), now)
	}
	b.WriteString("]}")
}

// writeRow appends the row of one object, rendered at the request's
// version.
func (tw *Writer) writeRow(b *bytes.Buffer, raw []byte, now time.Time) {
	o := mustDecode(raw)
	cells, conds := tw.Printer.Cells(o, now)
	b.WriteString(`{"cells":`)
	encode.Value(b, cells)
	if len(conds) > 0 {
		b.WriteString(`,"conditions":`)
		encode.Value(b, conds)
	}
	b.WriteString(`,"object":`)
	switch tw.Include {
	case "None":
		b.WriteString("null")
	case "Object":
		b.Write(raw)
	default:
		b.Write(encode.Object(obj{"kind": "PartialObjectMetadata", "apiVersion": tw.APIVersion(), "metadata": o["metadata"]}))
	}
	b.WriteByte('}')
}

// One renders a single object as a Table whose resourceVersion is the
// object's.
func (tw *Writer) One(raw []byte, headers bool) []byte {
	var b bytes.Buffer
	b.Grow(len(raw) + 1024)
	rv := unstructured.String(unstructured.Metadata(mustDecode(raw)), "resourceVersion")
	tw.Write(&b, kube.ListMeta{ResourceVersion: rv}, [][]byte{raw}, headers)
	return b.Bytes()
}

// mustDecode decodes an object the server encoded.
func mustDecode(raw []byte) obj {
	o, err := unstructured.DecodeObjectOrNull(raw)
	if err != nil || o == nil {
		panic("kubetest: decode stored object for a Table: " + string(raw))
	}
	return o
}

// List renders a list's page as a Table: a row for each stored object in
// raws, meta as its metadata, with the column definitions.
func (tw *Writer) List(meta kube.ListMeta, raws [][]byte) []byte {
	size := 1024
	for _, raw := range raws {
		size += len(raw)
	}
	var b bytes.Buffer
	b.Grow(size)
	tw.Write(&b, meta, raws, true)
	return b.Bytes()
}

// Bookmark renders the object of a watch's BOOKMARK at rv as a Table.
// The real server converts the bookmark object (kind, apiVersion and
// resourceVersion) like any other: a Table with one row printed from
// that empty object, which keeps its metadata even with
// includeObject=None when it ends the initial events (initialEnd).
// headers says whether the column definitions are written.
func (tw Writer) Bookmark(kind, apiVersion, rv string, initialEnd, headers bool) []byte {
	meta := obj{"resourceVersion": rv}
	if initialEnd {
		meta["annotations"] = obj{"k8s.io/initial-events-end": "true"}
		if tw.Include == "None" {
			tw.Include = "Metadata"
		}
	}
	return tw.One(encode.Object(obj{"kind": kind, "apiVersion": apiVersion, "metadata": meta}), headers)
}
