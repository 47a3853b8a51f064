// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/table"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file serves the Table form (Accept:
// application/json;as=Table;v=v1;g=meta.k8s.io, and v1beta1), which is
// what kubectl get asks for: the columns of the kind and one row of cells
// per object, each row carrying the object's metadata (includeObject=Metadata,
// the default), the whole object (Object) or nothing (None). Gets, lists
// (paged: continue and remainingItemCount in the Table's metadata), the
// answers of writes, and watches (one single-row Table per event, the
// columns in the first event only) all take that form. Cells that show an
// age are computed when the answer is written, as the real server does.

// tableForm is a request for Table output.
type tableForm struct {
	// version is the meta.k8s.io version of the Table: "v1" or "v1beta1".
	version string
	// include is the includeObject option: "Metadata", "Object" or "None".
	include string
	// err is the answer to an invalid includeObject, which the real server
	// gives when it writes the response, after the request has been acted
	// on.
	err *kube.StatusError
}

// newTableForm reads the table options of the query.
func newTableForm(q url.Values, version string) *tableForm {
	t := &tableForm{version: version, include: q.Get("includeObject")}
	switch t.include {
	case "":
		t.include = "Metadata"
	case "Metadata", "Object", "None":
	default:
		t.err = errBadRequest("Unable to convert to Table as requested: includeObject: Invalid value: " +
			strconv.Quote(t.include) + ": must be 'Metadata', 'Object', 'None', or empty")
	}
	return t
}

// apiVersion is the Table's apiVersion, also that of the
// PartialObjectMetadata of its rows.
func (t *tableForm) apiVersion() string { return "meta.k8s.io/" + t.version }

// tableWriter writes Tables of one resource.
type tableWriter struct {
	form *tableForm
	res  *resource
	p    *table.Printer
}

func newTableWriter(form *tableForm, res *resource) *tableWriter {
	return &tableWriter{form: form, res: res, p: printerFor(res)}
}

// write appends a Table holding a row for each stored object in raws,
// with meta as its metadata; headers says whether the column definitions
// are written (every event of a watch but the first has none).
func (tw *tableWriter) write(b *bytes.Buffer, meta kube.ListMeta, raws [][]byte, headers bool) {
	now := time.Now()
	m, _ := json.Marshal(meta)
	b.WriteString(`{"kind":"Table","apiVersion":`)
	writeJSONString(b, tw.form.apiVersion())
	b.WriteString(`,"metadata":`)
	b.Write(m)
	b.WriteString(`,"columnDefinitions":`)
	if headers {
		writeJSONValue(b, tw.p.Columns)
	} else {
		b.WriteString("null")
	}
	b.WriteString(`,"rows":`)
	if len(raws) == 0 && tw.p.NullRows {
		b.WriteString("null}")
		return
	}
	b.WriteByte('[')
	for i, raw := range raws {
		if i > 0 {
			b.WriteByte(',')
		}
		tw.writeRow(b, renderAs(raw, tw.res, false), now)
	}
	b.WriteString("]}")
}

// writeRow appends the row of one object, rendered at the request's
// version.
func (tw *tableWriter) writeRow(b *bytes.Buffer, raw []byte, now time.Time) {
	o := mustDecode(raw)
	cells, conds := tw.p.Cells(o, now)
	b.WriteString(`{"cells":`)
	writeJSONValue(b, cells)
	if len(conds) > 0 {
		b.WriteString(`,"conditions":`)
		writeJSONValue(b, conds)
	}
	b.WriteString(`,"object":`)
	switch tw.form.include {
	case "None":
		b.WriteString("null")
	case "Object":
		b.Write(raw)
	default:
		b.Write(encodeObject(obj{"kind": "PartialObjectMetadata", "apiVersion": tw.form.apiVersion(), "metadata": o["metadata"]}))
	}
	b.WriteByte('}')
}

// one renders a single object as a Table whose resourceVersion is the
// object's.
func (tw *tableWriter) one(raw []byte, headers bool) []byte {
	var b bytes.Buffer
	b.Grow(len(raw) + 1024)
	rv := unstructured.String(unstructured.Metadata(mustDecode(raw)), "resourceVersion")
	tw.write(&b, kube.ListMeta{ResourceVersion: rv}, [][]byte{raw}, headers)
	return b.Bytes()
}

// respondTable answers with a Table of one object, or with the error of
// invalid table options.
func (c *call) respondTable(code int, raw []byte) {
	if c.table.err != nil {
		writeError(c.w, c.table.err)
		return
	}
	writeJSON(c.w, code, newTableWriter(c.table, c.res).one(raw, true))
}

// writeList answers a list or deletecollection with its page, as a list
// of the kind or as a Table.
func (c *call) writeList(page *listPage) {
	if c.table == nil {
		writeJSON(c.w, http.StatusOK, c.encodeList(page))
		return
	}
	if c.table.err != nil {
		writeError(c.w, c.table.err)
		return
	}
	raws := make([][]byte, len(page.items))
	size := 1024
	for i, r := range page.items {
		raws[i] = r.raw
		size += len(r.raw)
	}
	var b bytes.Buffer
	b.Grow(size)
	newTableWriter(c.table, c.res).write(&b, kube.ListMeta{ResourceVersion: formatRV(page.rv),
		Continue: page.cont, RemainingItemCount: page.remaining}, raws, true)
	writeJSON(c.w, http.StatusOK, b.Bytes())
}

// writeTableBookmark appends a BOOKMARK of a Table watch. The real server
// converts the bookmark object (kind, apiVersion and resourceVersion) like
// any other: a Table with one row printed from that empty object, which
// keeps its metadata even with includeObject=None when it ends the initial
// events.
func (w *watcher) writeTableBookmark(buf *bytes.Buffer, rv uint64, initialEnd bool) {
	meta := obj{"resourceVersion": formatRV(rv)}
	tw := *w.table
	if initialEnd {
		meta["annotations"] = obj{"k8s.io/initial-events-end": "true"}
		if tw.form.include == "None" {
			form := *tw.form
			form.include = "Metadata"
			tw.form = &form
		}
	}
	raw := encodeObject(obj{"kind": w.res.Kind, "apiVersion": w.res.storageAPIVersion(), "metadata": meta})
	buf.WriteString(`{"type":"BOOKMARK","object":`)
	buf.Write(tw.one(raw, w.tableHeaders))
	w.tableHeaders = false
	buf.WriteString("}\n")
}

// printerFor returns the printer of res: its own (custom resources), the
// built-in one of its group and resource, or the default one.
func printerFor(res *resource) *table.Printer {
	if res.Printer != nil {
		return res.Printer
	}
	return table.BuiltinPrinter(res.colKey(), res.CRD != "")
}
