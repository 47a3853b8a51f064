// SPDX-License-Identifier: Apache-2.0

package measure

import (
	"sync"
	"sync/atomic"
	"time"
)

// Write follows a write measurement: a controller that labels every
// seeded ConfigMap once. Its reconciler calls Reconciled for every call and
// Labelled for each seeded object it patched or found labelled; Done is
// closed once all of them carry the label. Safe for concurrent use.
type Write struct {
	program     string
	stopProfile func()
	want        int
	start       time.Time
	usage       Usage
	reconciles  atomic.Int64
	patches     atomic.Int64

	mu       sync.Mutex
	labelled map[string]bool // names of the seeded objects seen labelled
	end      time.Time       // when the last one was; zero until then
	endUsage Usage           // the process's usage at end
	done     chan struct{}   // closed when end is set
}

// StartWrite starts a measurement of program, a controller that must
// label want objects: call it just before the manager starts.
func StartWrite(program string, want int) *Write {
	w := &Write{program: program, want: want, labelled: make(map[string]bool, want), done: make(chan struct{})}
	w.stopProfile = startProfile(program)
	w.usage, w.start = ReadUsage(), time.Now()
	return w
}

// Reconciled counts one call of the reconciler.
func (w *Write) Reconciled() { w.reconciles.Add(1) }

// Patched counts one patch sent.
func (w *Write) Patched() { w.patches.Add(1) }

// Labelled records that seeded object name carries the label.
func (w *Write) Labelled(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.labelled[name] || !w.end.IsZero() {
		return
	}
	w.labelled[name] = true
	if len(w.labelled) == w.want {
		w.end = time.Now()
		w.endUsage = ReadUsage()
		close(w.done)
	}
}

// Done is closed once every seeded object carries the label.
func (w *Write) Done() <-chan struct{} { return w.done }

// Result is the measurement, to call once Done is closed.
func (w *Write) Result() Result {
	w.stopProfile()
	w.mu.Lock()
	wall, u := w.end.Sub(w.start), w.endUsage
	w.mu.Unlock()
	cpu := u.CPU - w.usage.CPU
	r := Result{Program: w.program, Objects: w.want, WallSeconds: wall.Seconds(), CPUSeconds: cpu.Seconds(),
		PeakRSSMB: float64(u.PeakRSS) / (1 << 20), Reconciles: w.reconciles.Load(), Patches: w.patches.Load()}
	if r.Reconciles > 0 {
		r.CPUPerReconcileMS = cpu.Seconds() * 1000 / float64(r.Reconciles)
	}
	if r.Objects > 0 {
		r.CPUPerObjectMS = cpu.Seconds() * 1000 / float64(r.Objects)
	}
	return r
}
