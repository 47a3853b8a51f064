// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// Registry holds the collectors of one metrics endpoint. It is safe for
// concurrent use: collectors may be registered while it is scraped.
type Registry struct {
	mu         sync.Mutex
	collectors []Collector
}

// NewRegistry returns a registry holding cs.
func NewRegistry(cs ...Collector) *Registry {
	return &Registry{collectors: slices.Clone(cs)}
}

// Register adds c; it is asked for samples from the next scrape on.
// Whether the names it emits clash with others' shows at scrape time.
func (r *Registry) Register(c Collector) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.collectors = append(r.collectors, c)
}

// Gather asks every collector for its samples, in registration order, and
// returns the families sorted by name, each one's series sorted by labels.
// The error lists the samples left out because they would break the
// format; the families hold the rest. The cost is O(n log n) in the
// number of series.
func (r *Registry) Gather() ([]Family, error) {
	r.mu.Lock()
	cs := slices.Clone(r.collectors)
	r.mu.Unlock()
	e := newEmitter()
	for _, c := range cs {
		c.Collect(e)
	}
	return e.result()
}

// Write gathers the samples and writes them in the text format. On a
// gather error it writes the valid families and returns the error.
func (r *Registry) Write(w io.Writer) error {
	fams, gatherErr := r.Gather()
	if err := WriteText(w, fams); err != nil {
		return errs.Errorf("write metrics: %w", err)
	}
	if gatherErr != nil {
		return errs.Errorf("gather metrics: %w", gatherErr)
	}
	return nil
}

// ServeHTTP answers a scrape: 200 with the text format, or 500 with the
// errors when a collector emitted samples that break the format (as
// Prometheus' client does by default), so that the mistake shows.
// Methods other than GET and HEAD get 405.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		http.Error(w, "An error has occurred while serving metrics:\n\n"+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", ContentType)
	w.Header().Set("Content-Length", fmt.Sprint(buf.Len()))
	if req.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(buf.Bytes()) // the client went away; nothing to do
}

// ContentType is the media type of the text exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// WriteText writes families in the text exposition format, in the order
// given (see [Registry.Write] for the sorted order of a scrape):
//
//	# HELP name help text
//	# TYPE name counter
//	name{label="value"} 1
//
// A histogram is written as its name_bucket series (one per bound, then
// le="+Inf"), name_sum and name_count; a summary as its name series (one
// per quantile), name_sum and name_count. Help lines are left out when the
// help is empty.
func WriteText(w io.Writer, families []Family) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for _, f := range families {
		buf = buf[:0]
		if f.Help != "" {
			buf = append(buf, "# HELP "...)
			buf = append(buf, f.Name...)
			buf = append(buf, ' ')
			buf = append(buf, escapeHelp(f.Help)...)
			buf = append(buf, '\n')
		}
		buf = append(buf, "# TYPE "...)
		buf = append(buf, f.Name...)
		buf = append(buf, ' ')
		buf = append(buf, f.Type.String()...)
		buf = append(buf, '\n')
		for _, s := range f.Series {
			if f.Type == TypeSummary {
				buf = appendSummary(buf, f.Name, s)
				continue
			}
			if f.Type != TypeHistogram {
				buf = appendSample(buf, f.Name, s.Labels, Label{}, s.Value)
				continue
			}
			h := s.Histogram
			if h == nil {
				h = &Histogram{}
			}
			for i, b := range h.UpperBounds {
				buf = appendSample(buf, f.Name+"_bucket", s.Labels, Label{"le", formatFloat(b)}, float64(h.Counts[i]))
			}
			buf = appendSample(buf, f.Name+"_bucket", s.Labels, Label{"le", "+Inf"}, float64(h.Count))
			buf = appendSample(buf, f.Name+"_sum", s.Labels, Label{}, h.Sum)
			buf = appendSample(buf, f.Name+"_count", s.Labels, Label{}, float64(h.Count))
		}
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendSample appends `name{labels,extra} value\n`; extra is left out when
// its name is empty.
func appendSample(buf []byte, name string, labels []Label, extra Label, v float64) []byte {
	buf = append(buf, name...)
	if len(labels) > 0 || extra.Name != "" {
		buf = append(buf, '{')
		for i, l := range labels {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendLabel(buf, l)
		}
		if extra.Name != "" {
			if len(labels) > 0 {
				buf = append(buf, ',')
			}
			buf = appendLabel(buf, extra)
		}
		buf = append(buf, '}')
	}
	buf = append(buf, ' ')
	buf = append(buf, formatFloat(v)...)
	return append(buf, '\n')
}

func appendLabel(buf []byte, l Label) []byte {
	buf = append(buf, l.Name...)
	buf = append(buf, '=', '"')
	buf = append(buf, escapeLabelValue(l.Value)...)
	return append(buf, '"')
}

// formatFloat renders v as the format wants: the shortest representation
// that parses back to v, and "+Inf", "-Inf", "NaN".
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, +1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

// escapeHelp escapes help text: backslash and newline.
func escapeHelp(s string) string { return helpEscaper.Replace(s) }

// escapeLabelValue escapes a label value: backslash, double quote and
// newline.
func escapeLabelValue(s string) string { return labelEscaper.Replace(s) }
