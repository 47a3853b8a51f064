// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// Measurements for the design note. They take a minute and a few hundred
// MB, so they run only when asked:
//
//	KUBELOOP_MEASURE=1 go test -run TestMemoryPerObject -v ./cache/
//
// KUBELOOP_MEASURE_N sets the number of ConfigMaps (default 50,000, each
// with 1 KiB of data, distinct per object, and the managedFields entry
// the server writes).

func measureN(t *testing.T) int {
	if os.Getenv("KUBELOOP_MEASURE") == "" {
		t.Skip("set KUBELOOP_MEASURE=1 to run the measurements")
	}
	if n, err := strconv.Atoi(os.Getenv("KUBELOOP_MEASURE_N")); err == nil && n > 0 {
		return n
	}
	return 50000
}

// seedConfigMaps creates n ConfigMaps of 1 KiB of data in namespace
// default.
func seedConfigMaps(t testing.TB, srv *kubetest.Server, n int) {
	t.Helper()
	pad := strings.Repeat("x", 1024-16)
	for k := range n {
		obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": "default", "name": fmt.Sprintf("cm-%06d", k)},
			"data":     map[string]any{"payload": fmt.Sprintf("%016d", k) + pad}}
		if _, err := srv.Create(configMaps, obj); err != nil {
			t.Fatal(err)
		}
	}
}

// measureVariant is one kind of cache to measure.
type measureVariant struct {
	name string
	make func(c *kube.Client, opts InformerOptions) (Source, error)
	drop bool
}

var cmKind = kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}

func variant[T any](name string, drop bool) measureVariant {
	return measureVariant{name: name, drop: drop, make: func(c *kube.Client, opts InformerOptions) (Source, error) {
		opts.Kind = cmKind
		if drop {
			opts.Transform = DropManagedFields
		}
		inf, err := NewInformer[T](c, opts)
		if err != nil {
			return nil, err
		}
		return inf.Source(), nil
	}}
}

var measureVariants = []measureVariant{
	variant[kube.ConfigMap]("typed", false),
	variant[kube.ConfigMap]("typed+DropManagedFields", true),
	variant[kube.Unstructured]("unstructured", false),
	variant[kube.Unstructured]("unstructured+DropManagedFields", true),
	variant[kube.PartialObjectMetadata]("metadata-only", false),
	variant[kube.PartialObjectMetadata]("metadata-only+DropManagedFields", true),
}

func heap() (alloc, inuse uint64) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, m.HeapInuse
}

// TestMemoryPerObject measures, for each kind of cache, an informer
// syncing n ConfigMaps in a process of its own from a kubetest server in
// another process, over loopback HTTP (so that the server's memory is not
// counted): the heap held per cached object once synced (after
// runtime.GC, HeapAlloc and HeapInuse minus their values before), the
// process's peak RSS, and the time and CPU time to sync. The test re-runs
// its own binary for the server and for each client.
func TestMemoryPerObject(t *testing.T) {
	n := measureN(t)
	server := exec.Command(os.Args[0], "-test.run=^TestMeasureServer$")
	server.Env = append(os.Environ(), "KUBELOOP_MEASURE_SERVE="+strconv.Itoa(n))
	stdin, err := server.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	server.Stderr = os.Stderr
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close() // the server process ends when its stdin closes
		if err := server.Wait(); err != nil {
			t.Errorf("server process: %v", err)
		}
	}()
	url := ""
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "URL "); ok {
			url = u
			break
		}
	}
	if url == "" {
		t.Fatal("the server process printed no URL")
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	for _, watchList := range []bool{true, false} {
		for _, v := range measureVariants {
			if only := os.Getenv("KUBELOOP_MEASURE_ONLY"); only != "" && !slices.Contains(strings.Split(only, ","), v.name) {
				continue
			}
			client := exec.Command(os.Args[0], "-test.run=^TestMeasureClient$", "-test.v")
			client.Env = append(os.Environ(), "KUBELOOP_MEASURE_CLIENT="+url, "KUBELOOP_MEASURE_VARIANT="+v.name,
				"KUBELOOP_MEASURE_WATCHLIST="+strconv.FormatBool(watchList))
			out, err := client.CombinedOutput()
			if err != nil {
				t.Fatalf("client process: %v\n%s", err, out)
			}
			for _, line := range strings.Split(string(out), "\n") {
				if i := strings.Index(line, "RESULT "); i >= 0 {
					t.Log(line[i+len("RESULT "):])
				}
			}
		}
	}
}

// TestMeasureServer is the server process of TestMemoryPerObject.
func TestMeasureServer(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("KUBELOOP_MEASURE_SERVE"))
	if err != nil {
		t.Skip("the server process of TestMemoryPerObject")
	}
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	seedConfigMaps(t, srv, n)
	l, err := srv.Listen(false)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("URL " + l.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// TestMeasureClient is a client process of TestMemoryPerObject.
func TestMeasureClient(t *testing.T) {
	url := os.Getenv("KUBELOOP_MEASURE_CLIENT")
	if url == "" {
		t.Skip("a client process of TestMemoryPerObject")
	}
	if os.Getenv("KUBELOOP_MEASURE_HEAPPROFILE") != "" {
		runtime.MemProfileRate = 1
	}
	var v measureVariant
	for _, mv := range measureVariants {
		if mv.name == os.Getenv("KUBELOOP_MEASURE_VARIANT") {
			v = mv
		}
	}
	client, err := kube.NewClient(&kube.Config{Host: url, QPS: -1}, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	watchList, _ := strconv.ParseBool(os.Getenv("KUBELOOP_MEASURE_WATCHLIST"))
	inf, err := v.make(client, InformerOptions{DisableWatchList: !watchList})
	if err != nil {
		t.Fatal(err)
	}
	rssBefore := procStatus(t, "VmRSS")
	allocBefore, inuseBefore := heap()
	cpuBefore := cpuTime()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	start := time.Now()
	go func() { defer close(done); _ = inf.(*informer).Start(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	took, cpu := time.Since(start), cpuTime()-cpuBefore
	peak := procStatus(t, "VmHWM")
	allocAfter, inuseAfter := heap()
	st := inf.(*informer).stats()
	t.Logf("RESULT %-32s watchList=%-5v %d objects: heap alloc %4d B/object, in use %4d B/object; sync %v (CPU %v); RSS before %d MB, peak %d MB",
		v.name, watchList, st.Objects, int64(allocAfter-allocBefore)/int64(st.Objects), int64(inuseAfter-inuseBefore)/int64(st.Objects),
		took.Round(time.Millisecond), cpu.Round(time.Millisecond), rssBefore>>10, peak>>10)
	if path := os.Getenv("KUBELOOP_MEASURE_HEAPPROFILE"); path != "" {
		f, err := os.Create(path + "." + v.name)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	cancel()
	<-done
	runtime.KeepAlive(inf)
}

// cpuTime returns the user and system CPU time of the process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procStatus returns a kB value of /proc/self/status.
func procStatus(t *testing.T, field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status: ", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}
