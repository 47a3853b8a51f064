// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
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
// the server writes). With KUBELOOP_KUBECONFIG set, TestMemoryPerObject
// syncs from that real server instead of kubetest. KUBELOOP_MEASURE_ONLY
// (variant names, comma-separated) picks variants; with
// KUBELOOP_MEASURE_HEAPPROFILE=path each client writes a heap profile of
// every allocation to path.<variant>.watchList=<bool>.

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
	for k := range n {
		if _, err := srv.Create(configMaps, measureConfigMap("default", k)); err != nil {
			t.Fatal(err)
		}
	}
}

// measureConfigMap is ConfigMap k of the measurements, cm-000000 on, with
// 1 KiB of data, distinct per object.
func measureConfigMap(namespace string, k int) *kube.ConfigMap {
	return &kube.ConfigMap{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: kube.ObjectMeta{Namespace: namespace, Name: fmt.Sprintf("cm-%06d", k)},
		Data:       map[string]string{"payload": fmt.Sprintf("%016d", k) + strings.Repeat("x", 1024-16)}}
}

// measureVariant is one kind of cache to measure.
type measureVariant struct {
	name string
	make func(c *kube.Client, opts InformerOptions) (ObjectInformer, error)
}

var cmKind = kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}

// variant measures an informer of T; keep keeps managedFields
// (InformerOptions.KeepManagedFields; by default they are not decoded),
// compact sets InformerOptions.Compact.
func variant[T any](name string, keep, compact bool) measureVariant {
	return measureVariant{name: name, make: func(c *kube.Client, opts InformerOptions) (ObjectInformer, error) {
		opts.Kind = cmKind
		opts.Compact = compact
		opts.KeepManagedFields = keep
		inf, err := NewInformer[T](c, opts)
		if err != nil {
			return nil, err
		}
		return inf.ObjectInformer(), nil
	}}
}

var measureVariants = []measureVariant{
	variant[kube.ConfigMap]("typed", false, false),
	variant[kube.ConfigMap]("typed+KeepManagedFields", true, false),
	variant[kube.ConfigMap]("typed compact", false, true),
	variant[kube.ConfigMap]("typed compact+KeepMF", true, true),
	variant[kube.Unstructured]("unstructured", false, false),
	variant[kube.Unstructured]("unstructured+KeepManagedFields", true, false),
	variant[kube.Unstructured]("unstructured compact", false, true),
	variant[kube.PartialObjectMetadata]("metadata-only", false, false),
	variant[kube.PartialObjectMetadata]("metadata-only+KeepMF", true, false),
	variant[kube.PartialObjectMetadata]("metadata compact", false, true),
}

func heap() (alloc, inuse uint64) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, m.HeapInuse
}

// TestMemoryPerObject measures, for each kind of cache, an informer
// syncing n ConfigMaps in a process of its own from a server in another
// process (so that the server's memory is not counted): the heap held per
// cached object once synced (after runtime.GC, HeapAlloc and HeapInuse
// minus their values before), the process's peak RSS, and the time and CPU
// time to sync. It also logs the size of one ConfigMap's JSON in a list.
//
// The server is a kubetest server in a child process, over loopback HTTP;
// with KUBELOOP_KUBECONFIG set (testdata/kube-apiserver/harness.sh run sets
// it), it is that real server instead, whose namespace measure is seeded
// first and is the only one the informers watch:
//
//	bash testdata/kube-apiserver/harness.sh run -- env KUBELOOP_MEASURE=1 \
//		go test -count=1 -run TestMemoryPerObject -v ./cache/
//
// The test re-runs its own binary for the kubetest server and for each
// client.
func TestMemoryPerObject(t *testing.T) {
	n := measureN(t)
	// server is what the clients connect to: a kubeconfig path or a URL.
	server := os.Getenv("KUBELOOP_KUBECONFIG")
	if server != "" {
		seedRealServer(t, server, n)
	} else {
		server = startMeasureServer(t, n)
	}
	cfg, namespaces := measureConfig(t, server)
	t.Log(configMapJSONSize(t, cfg, namespaces))
	for _, watchList := range []bool{true, false} {
		for _, v := range measureVariants {
			if only := os.Getenv("KUBELOOP_MEASURE_ONLY"); only != "" && !slices.Contains(strings.Split(only, ","), v.name) {
				continue
			}
			client := exec.Command(os.Args[0], "-test.run=^TestMeasureClient$", "-test.v")
			client.Env = append(os.Environ(), "KUBELOOP_MEASURE_CLIENT="+server, "KUBELOOP_MEASURE_VARIANT="+v.name,
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

// measureNamespace holds the ConfigMaps on a real server.
const measureNamespace = "measure"

// measureConfig returns the configuration of server, a kubetest URL or a
// kubeconfig path, with no rate limit, and the namespaces to watch there:
// all on kubetest, measureNamespace on a real server.
func measureConfig(t *testing.T, server string) (*kube.Config, []string) {
	if strings.HasPrefix(server, "http://") {
		return &kube.Config{Host: server, QPS: -1}, nil
	}
	cfg, err := kube.LoadConfig(kube.LoadOptions{Path: server})
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS = -1
	return cfg, []string{measureNamespace}
}

// startMeasureServer starts the kubetest server process with n ConfigMaps,
// stopped when the test ends, and returns its URL.
func startMeasureServer(t *testing.T, n int) string {
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
	t.Cleanup(func() {
		stdin.Close() // the server process ends when its stdin closes
		if err := server.Wait(); err != nil {
			t.Errorf("server process: %v", err)
		}
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if url, ok := strings.CutPrefix(lines.Text(), "URL "); ok {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return url
		}
	}
	t.Fatal("the server process printed no URL")
	return ""
}

// seedRealServer makes measureNamespace on the server of kubeconfig hold
// exactly the n ConfigMaps measureConfigMap makes: it creates those missing
// (so that a later run reuses them) and deletes any other, with a few
// requests in flight.
func seedRealServer(t *testing.T, kubeconfig string, n int) {
	cfg, _ := measureConfig(t, kubeconfig)
	c, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	err = c.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: measureNamespace}})
	if err != nil && !kube.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	have := kube.List[kube.PartialObjectMetadata]{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}}
	if err := kube.ListAll(ctx, c, &have, kube.ListOptions{Namespace: measureNamespace}); err != nil {
		t.Fatal(err)
	}
	extra := make(map[string]bool, len(have.Items))
	for _, o := range have.Items {
		extra[o.Name] = true
	}

	start := time.Now()
	var (
		wg       sync.WaitGroup
		failOnce sync.Once
		failed   error
	)
	jobs := make(chan func() error)
	for range 8 {
		wg.Go(func() {
			for job := range jobs {
				if err := job(); err != nil {
					failOnce.Do(func() { failed = err; cancel() })
				}
			}
		})
	}
	created := 0
	for k := range n {
		cm := measureConfigMap(measureNamespace, k)
		if extra[cm.Name] {
			delete(extra, cm.Name)
			continue
		}
		created++
		jobs <- func() error { return c.Create(ctx, cm) }
	}
	for name := range extra {
		jobs <- func() error {
			return c.Delete(ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: measureNamespace, Name: name}})
		}
	}
	close(jobs)
	wg.Wait()
	if failed != nil {
		t.Fatal(failed)
	}
	t.Logf("namespace %s: %d ConfigMaps, of which %d created, and %d deleted, in %v",
		measureNamespace, n, created, len(extra), time.Since(start).Round(time.Millisecond))
}

// configMapJSONSize fetches one ConfigMap as the server sends it in a list
// and says how many bytes of JSON it takes, with and without managedFields.
func configMapJSONSize(t *testing.T, cfg *kube.Config, namespaces []string) string {
	path := "/api/v1/configmaps?limit=1"
	if len(namespaces) > 0 {
		path = "/api/v1/namespaces/" + namespaces[0] + "/configmaps?limit=1"
	}
	hc, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(strings.TrimSuffix(cfg.Host, "/") + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct{ Items []json.RawMessage }
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || resp.StatusCode != 200 || len(list.Items) == 0 {
		t.Fatalf("list one ConfigMap: %s, %v, %d items", resp.Status, err, len(list.Items))
	}
	var cm map[string]any
	if err := json.Unmarshal(list.Items[0], &cm); err != nil {
		t.Fatal(err)
	}
	meta, _ := cm["metadata"].(map[string]any)
	delete(meta, "managedFields")
	without, err := json.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("one ConfigMap in a list: %d B of JSON, %d B without managedFields", len(list.Items[0]), len(without))
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
	server := os.Getenv("KUBELOOP_MEASURE_CLIENT")
	if server == "" {
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
	cfg, namespaces := measureConfig(t, server)
	client, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	watchList, _ := strconv.ParseBool(os.Getenv("KUBELOOP_MEASURE_WATCHLIST"))
	inf, err := v.make(client, InformerOptions{Namespaces: namespaces, WatchList: watchList})
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
		f, err := os.Create(fmt.Sprintf("%s.%s.watchList=%v", path, v.name, watchList))
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
