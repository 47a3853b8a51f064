// SPDX-License-Identifier: Apache-2.0

// Package measure holds what the programs of this module share, standard
// library only so that it adds nothing to a kubeloop program's size or
// memory: the process's CPU time and peak RSS, the heap after a GC, the
// ConfigMaps the measurements use, and the JSON line each program prints.
package measure

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"
)

// Namespace holds the seeded ConfigMaps.
const Namespace = "peer"

// Label is the label the write programs add to every seeded ConfigMap, with
// the value LabelValue.
const (
	Label      = "kubeloop.dev/peer-seen"
	LabelValue = "yes"
)

// PayloadSize is the size of each seeded ConfigMap's data.
const PayloadSize = 1024

// Name is the name of seeded ConfigMap k.
func Name(k int) string { return fmt.Sprintf("cm-%06d", k) }

// Payload is the data of seeded ConfigMap k: PayloadSize bytes, distinct
// per object, so that nothing can share them.
func Payload(k int) string {
	return fmt.Sprintf("%016d", k) + strings.Repeat("x", PayloadSize-16)
}

// Usage is the CPU time the process has used and its peak resident set.
type Usage struct {
	CPU     time.Duration
	PeakRSS int64 // bytes
}

// ReadUsage returns the process's user+system CPU time and peak RSS, from
// getrusage(RUSAGE_SELF).
func ReadUsage() Usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return Usage{}
	}
	return Usage{
		CPU:     time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		PeakRSS: int64(ru.Maxrss) * 1024, // kB on Linux
	}
}

// Heap runs the garbage collector twice and returns the bytes of live
// objects (HeapAlloc) and of the spans holding them (HeapInuse).
func Heap() (alloc, inuse uint64) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, m.HeapInuse
}

// Result is the line a program prints. Fields a program does not measure
// stay zero and are left out.
type Result struct {
	// Program names the program and its variant, "sync kubeloop typed"
	// say: the row of the driver's table.
	Program string `json:"program"`
	// Objects is the number of objects the informer holds (sync) or the
	// controller labelled (write).
	Objects int `json:"objects"`
	// WallSeconds is the time from the start of the informer or manager
	// to its sync (sync) or to the last object labelled (write).
	WallSeconds float64 `json:"wall_s"`
	// CPUSeconds is the process's user+system CPU time over the same span.
	CPUSeconds float64 `json:"cpu_s"`
	// HeapAllocPerObject and HeapInusePerObject are the growth of
	// HeapAlloc and HeapInuse (after GC) from before the start to the
	// sync, divided by Objects.
	HeapAllocPerObject float64 `json:"heap_alloc_per_object,omitempty"`
	HeapInusePerObject float64 `json:"heap_inuse_per_object,omitempty"`
	// PeakRSSMB is the process's peak resident set (ru_maxrss), in MiB.
	PeakRSSMB float64 `json:"peak_rss_mb"`
	// Reconciles counts the calls of the reconciler (write).
	Reconciles int64 `json:"reconciles,omitempty"`
	// Patches counts the patches the reconciler sent (write).
	Patches int64 `json:"patches,omitempty"`
	// CPUPerReconcileMS and CPUPerObjectMS are CPUSeconds divided by
	// Reconciles and by Objects, in milliseconds (write).
	CPUPerReconcileMS float64 `json:"cpu_per_reconcile_ms,omitempty"`
	CPUPerObjectMS    float64 `json:"cpu_per_object_ms,omitempty"`
}

// Print writes r as one JSON line on standard output.
func Print(r Result) {
	b, err := json.Marshal(r)
	if err != nil {
		Fail(fmt.Errorf("encode result: %w", err))
	}
	fmt.Println(string(b))
}

// Fail prints err and exits with status 1.
func Fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// ProfileEnv names the environment variable that, set to a directory, makes
// each program write a CPU profile of the span it measures there, as
// "<program>.<pid>.pprof" (spaces of the program's name as dashes). The
// profiler costs CPU: runs that profile are not for the tables.
const ProfileEnv = "KUBELOOP_PEER_CPUPROFILE"

// startProfile starts the CPU profile ProfileEnv asks for, if it does, and
// returns the function that stops it.
func startProfile(program string) func() {
	dir := os.Getenv(ProfileEnv)
	if dir == "" {
		return func() {}
	}
	name := fmt.Sprintf("%s.%d.pprof", strings.ReplaceAll(program, " ", "-"), os.Getpid())
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		Fail(fmt.Errorf("create CPU profile: %w", err))
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		Fail(fmt.Errorf("start CPU profile: %w", err))
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			Fail(fmt.Errorf("write CPU profile: %w", err))
		}
	}
}

// Sync is a sync measurement under way: Start it just before the informer
// starts, Done once it has synced with the number of objects it holds.
type Sync struct {
	program      string
	start        time.Time
	usage        Usage
	alloc, inuse uint64
	stopProfile  func()
}

// StartSync takes the heap and CPU baselines, then the start time, of
// program's sync.
func StartSync(program string) *Sync {
	s := &Sync{program: program}
	s.alloc, s.inuse = Heap()
	s.stopProfile = startProfile(program)
	s.usage = ReadUsage()
	s.start = time.Now()
	return s
}

// Done returns the result of a sync that ended now with objects held. The
// informer must be kept reachable until Done returns (runtime.KeepAlive),
// or the collector could free what is measured.
func (s *Sync) Done(objects int) Result {
	wall := time.Since(s.start)
	cpu := ReadUsage().CPU - s.usage.CPU
	s.stopProfile()
	alloc, inuse := Heap()
	r := Result{Program: s.program, Objects: objects, WallSeconds: wall.Seconds(), CPUSeconds: cpu.Seconds(),
		PeakRSSMB: float64(ReadUsage().PeakRSS) / (1 << 20)}
	if objects > 0 {
		r.HeapAllocPerObject = float64(int64(alloc)-int64(s.alloc)) / float64(objects)
		r.HeapInusePerObject = float64(int64(inuse)-int64(s.inuse)) / float64(objects)
	}
	return r
}
