// SPDX-License-Identifier: Apache-2.0

// Command table reads the JSON lines the measurement programs print (from
// the files named, or standard input) and prints, per program, the median
// of each measure over its runs with their range, then each program's
// medians as a fraction of its reference's: client-go's protobuf informer
// for the sync programs, controller-runtime for the write programs.
//
//	table results.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/kubeloop/kubeloop/testdata/peer/internal/measure"
)

// column is one measure of a table.
type column struct {
	name string
	get  func(r measure.Result) float64
	unit string
}

var syncColumns = []column{
	{"sync wall", func(r measure.Result) float64 { return r.WallSeconds }, "s"},
	{"sync CPU", func(r measure.Result) float64 { return r.CPUSeconds }, "s"},
	{"heap/object", func(r measure.Result) float64 { return r.HeapInusePerObject }, "B"},
	{"alloc/object", func(r measure.Result) float64 { return r.HeapAllocPerObject }, "B"},
	{"peak RSS", func(r measure.Result) float64 { return r.PeakRSSMB }, "MiB"},
	{"objects", func(r measure.Result) float64 { return float64(r.Objects) }, ""},
}

var writeColumns = []column{
	{"wall", func(r measure.Result) float64 { return r.WallSeconds }, "s"},
	{"CPU", func(r measure.Result) float64 { return r.CPUSeconds }, "s"},
	{"CPU/reconcile", func(r measure.Result) float64 { return r.CPUPerReconcileMS }, "ms"},
	{"CPU/object", func(r measure.Result) float64 { return r.CPUPerObjectMS }, "ms"},
	{"peak RSS", func(r measure.Result) float64 { return r.PeakRSSMB }, "MiB"},
	{"reconciles", func(r measure.Result) float64 { return float64(r.Reconciles) }, ""},
	{"patches", func(r measure.Result) float64 { return float64(r.Patches) }, ""},
}

func main() {
	var in []io.Reader
	for _, name := range os.Args[1:] {
		f, err := os.Open(name)
		if err != nil {
			measure.Fail(fmt.Errorf("table: %w", err))
		}
		defer f.Close()
		in = append(in, f)
	}
	if len(in) == 0 {
		in = append(in, os.Stdin)
	}
	runs, order, err := read(io.MultiReader(in...))
	if err != nil {
		measure.Fail(fmt.Errorf("table: %w", err))
	}
	print(os.Stdout, "sync", syncColumns, "sync client-go protobuf", runs, order)
	print(os.Stdout, "write", writeColumns, "write controller-runtime", runs, order)
}

// read returns the results of each program, and the programs in the
// order first seen.
func read(r io.Reader) (map[string][]measure.Result, []string, error) {
	runs := map[string][]measure.Result{}
	var order []string
	lines := bufio.NewScanner(r)
	for lines.Scan() {
		line := strings.TrimSpace(lines.Text())
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var res measure.Result
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			return nil, nil, fmt.Errorf("read result %q: %w", line, err)
		}
		if _, ok := runs[res.Program]; !ok {
			order = append(order, res.Program)
		}
		runs[res.Program] = append(runs[res.Program], res)
	}
	return runs, order, lines.Err()
}

// print writes the table of the programs whose name starts with prefix,
// then their medians over those of reference.
func print(w io.Writer, prefix string, cols []column, reference string, runs map[string][]measure.Result, order []string) {
	var programs []string
	for _, p := range order {
		if strings.HasPrefix(p, prefix+" ") {
			programs = append(programs, p)
		}
	}
	if len(programs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "program\truns\t")
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", strings.TrimSpace(c.name+" "+bracket(c.unit)))
	}
	fmt.Fprintln(tw)
	for _, p := range programs {
		fmt.Fprintf(tw, "%s\t%d\t", p, len(runs[p]))
		for _, c := range cols {
			med, lo, hi := stats(runs[p], c.get)
			fmt.Fprintf(tw, "%s [%s–%s]\t", num(med), num(lo), num(hi))
		}
		fmt.Fprintln(tw)
	}
	if _, ok := runs[reference]; ok {
		fmt.Fprintf(tw, "median / %s's\t\t", reference)
		fmt.Fprintln(tw)
		for _, p := range programs {
			if p == reference {
				continue
			}
			fmt.Fprintf(tw, "%s\t\t", p)
			for _, c := range cols {
				med, _, _ := stats(runs[p], c.get)
				ref, _, _ := stats(runs[reference], c.get)
				if c.unit == "" || ref == 0 {
					fmt.Fprint(tw, "-\t")
					continue
				}
				fmt.Fprintf(tw, "%.2f×\t", med/ref)
			}
			fmt.Fprintln(tw)
		}
	}
	fmt.Fprintln(tw)
	tw.Flush()
}

// stats returns the median, minimum and maximum of get over results.
func stats(results []measure.Result, get func(measure.Result) float64) (med, lo, hi float64) {
	v := make([]float64, len(results))
	for i, r := range results {
		v[i] = get(r)
	}
	slices.Sort(v)
	n := len(v)
	med = v[n/2]
	if n%2 == 0 {
		med = (v[n/2-1] + v[n/2]) / 2
	}
	return med, v[0], v[n-1]
}

func bracket(unit string) string {
	if unit == "" {
		return ""
	}
	return "(" + unit + ")"
}

// num formats a measure with three significant digits or as an integer.
func num(v float64) string {
	if v >= 100 || v == float64(int64(v)) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
