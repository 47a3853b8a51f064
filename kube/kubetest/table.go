// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"net/http"
	"net/url"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/table"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/watchenc"
)

// This file answers in the Table form (internal/table writes it), which
// is what kubectl get asks for: gets, lists (paged: continue and
// remainingItemCount in the Table's metadata), the answers of writes, and
// watches (one single-row Table per event, the columns in the first
// event only) all take that form.

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
	include, invalid := table.ParseInclude(q.Get("includeObject"))
	t := &tableForm{version: version, include: include}
	if invalid != "" {
		t.err = apierr.BadRequest(invalid)
	}
	return t
}

// tableWriter writes Tables of one resource.
type tableWriter struct{ table.Writer }

func newTableWriter(form *tableForm, res *resource) *tableWriter {
	return &tableWriter{table.Writer{Version: form.version, Include: form.include, Printer: printerFor(res),
		Render: func(raw []byte) []byte { return renderAs(raw, res, false) }}}
}

// respondTable answers with a Table of one object, or with the error of
// invalid table options.
func (c *call) respondTable(code int, raw []byte) {
	if c.table.err != nil {
		apierr.Write(c.w, c.table.err)
		return
	}
	apierr.WriteJSON(c.w, code, newTableWriter(c.table, c.res).One(raw, true))
}

// writeList answers a list or deletecollection with its page, as a list
// of the kind or as a Table.
func (c *call) writeList(page *listPage) {
	var err *kube.StatusError
	for i := 0; err == nil && c.res.Conversion != nil && i < len(page.items); i++ {
		r := *page.items[i] // a converted copy (records are immutable), one review each
		if r.raw, err = c.res.Conversion.ReadRaw(r.raw, c.res.APIVersion(), true); err == nil {
			r.tm, page.items[i] = bytes.Index(r.raw, []byte(`"metadata"`)), &r // after kind and apiVersion
		}
	}
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	if c.table == nil {
		apierr.WriteJSON(c.w, http.StatusOK, c.encodeList(page))
		return
	}
	if c.table.err != nil {
		apierr.Write(c.w, c.table.err)
		return
	}
	raws := make([][]byte, len(page.items))
	for i, r := range page.items {
		raws[i] = r.raw
	}
	apierr.WriteJSON(c.w, http.StatusOK, newTableWriter(c.table, c.res).List(kube.ListMeta{ResourceVersion: formatRV(page.rv),
		Continue: page.cont, RemainingItemCount: page.remaining}, raws))
}

// writeTableBookmark appends a BOOKMARK of a Table watch
// (table.Writer.Bookmark).
func (w *watcher) writeTableBookmark(buf *bytes.Buffer, rv uint64, initialEnd bool) {
	watchenc.Event(buf, "BOOKMARK", w.table.Bookmark(w.res.Kind, w.res.storageAPIVersion(), formatRV(rv), initialEnd, w.tableHeaders))
	w.tableHeaders = false
}

// printerFor returns the printer of res: its own (custom resources), the
// built-in one of its group and resource, or the default one.
func printerFor(res *resource) *table.Printer {
	if res.Printer != nil {
		return res.Printer
	}
	return table.BuiltinPrinter(res.colKey(), res.CRD != "")
}
