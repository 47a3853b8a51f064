// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The size budget of a program built on kubeloop, against the floor
// program (testdata/sizefloor: the standard packages a controller needs,
// doing nothing with them), in a default build. The tests assert it
// whatever the toolchain: it is the product's budget, and the numbers
// they log say how near the edge a change went.
const (
	// maxSizeRatio is how much larger than the floor the mirror may be:
	// kubeloop's own code, with the mirror's, within 15% of what the
	// standard packages it needs already cost.
	maxSizeRatio = 1.15
	// readmeBudget is how many bytes the README's 25-line controller
	// should add to the floor: the cost of the manager, the builder, the
	// cache and the client in the smallest real program (issue 26).
	readmeBudget = 1_200_000
)

// The programs the size and link checks read, built once per run of
// this package's tests, by one go build, and only when a test asks; the
// directory goes when the tests end (TestMain).
var (
	builtDir   string
	builtOnce  sync.Once
	builtSizes map[string]int64
	builtErr   error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		_ = os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// built returns the path of the default build of each program:
// "sizefloor" (testdata/sizefloor), "mirror" (this command) and
// "readme" (the README's 25-line controller, see readmeProgram).
func built(t *testing.T) map[string]string {
	t.Helper()
	builtOnce.Do(func() {
		builtDir, builtErr = os.MkdirTemp("", "kubeloop-size-")
		if builtErr != nil {
			return
		}
		builtSizes, builtErr = buildPrograms(builtDir)
	})
	if builtErr != nil {
		t.Fatal(builtErr)
	}
	paths := map[string]string{}
	for name := range builtSizes {
		paths[name] = filepath.Join(builtDir, name)
	}
	return paths
}

// buildPrograms builds the floor, the mirror and the README's controller
// into dir, with extra go build flags, and returns their sizes by name.
// The README's controller is not a file of the module: an overlay puts
// it at testdata/readme for the build.
func buildPrograms(dir string, flags ...string) (map[string]int64, error) {
	src, err := readmeProgram("../../README.md")
	if err != nil {
		return nil, err
	}
	mainGo := filepath.Join(dir, "readme.go")
	if err := os.WriteFile(mainGo, src, 0o644); err != nil {
		return nil, err
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		return nil, err
	}
	overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{
		filepath.Join(root, "testdata", "readme", "main.go"): mainGo}})
	if err != nil {
		return nil, err
	}
	overlayFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		return nil, err
	}
	args := append([]string{"build", "-overlay", overlayFile, "-o", dir + string(filepath.Separator)}, flags...)
	args = append(args, "../../testdata/sizefloor", ".", "../../testdata/readme")
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	sizes := map[string]int64{}
	for _, name := range []string{"sizefloor", "mirror", "readme"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		sizes[name] = fi.Size()
	}
	return sizes, nil
}

// readmeProgram returns the README's 25-line controller as a program:
// the first ```go block of the README, after the package clause and the
// imports it uses.
func readmeProgram(readme string) ([]byte, error) {
	b, err := os.ReadFile(readme)
	if err != nil {
		return nil, err
	}
	_, rest, ok := bytes.Cut(b, []byte("```go\n"))
	block, _, closed := bytes.Cut(rest, []byte("```"))
	if !ok || !closed {
		return nil, errors.New("read the README's controller: no ```go block in " + readme)
	}
	head := `package main

import (
	"context"
	"os"

	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

`
	return append([]byte(head), block...), nil
}

// TestBinarySize checks that the mirror stays within maxSizeRatio of the
// floor. With KUBELOOP_MEASURE set it also builds and logs the stripped
// sizes (-ldflags='-s -w'), for cmd/README.md:
//
//	KUBELOOP_MEASURE=1 go test -run 'TestBinarySize|TestReadmeControllerSize' -v ./cmd/mirror/
func TestBinarySize(t *testing.T) {
	t.Parallel()
	built(t)
	floor, mirror := builtSizes["sizefloor"], builtSizes["mirror"]
	ratio := float64(mirror) / float64(floor)
	t.Logf("default build: mirror %d bytes, floor %d bytes, %.4f×", mirror, floor, ratio)
	if ratio > maxSizeRatio {
		t.Errorf("the mirror is %d bytes, %.4f× the floor's %d: more than %.2f×", mirror, ratio, floor, maxSizeRatio)
	}
	if os.Getenv("KUBELOOP_MEASURE") == "" {
		return
	}
	stripped, err := buildPrograms(t.TempDir(), "-ldflags=-s -w")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stripped build: mirror %d bytes, floor %d bytes, %.4f×; README controller %d bytes (+%d)",
		stripped["mirror"], stripped["sizefloor"], float64(stripped["mirror"])/float64(stripped["sizefloor"]),
		stripped["readme"], stripped["readme"]-stripped["sizefloor"])
}

// TestReadmeControllerSize checks that the README's 25-line controller
// adds at most readmeBudget bytes to the floor, and logs how far from it
// it is.
func TestReadmeControllerSize(t *testing.T) {
	t.Parallel()
	built(t)
	floor, readme := builtSizes["sizefloor"], builtSizes["readme"]
	t.Logf("default build: README controller %d bytes, floor %d bytes, +%d (budget +%d: %+d)",
		readme, floor, readme-floor, readmeBudget, readme-floor-readmeBudget)
	if readme-floor > readmeBudget {
		t.Errorf("the README's controller is %d bytes, +%d over the floor's %d: more than +%d",
			readme, readme-floor, floor, readmeBudget)
	}
}

// TestOptionalPartsNotLinked checks that a program links the manager's
// optional parts only when it names them (see "Binary size" in package
// manager's doc). A program that never shards links none of the
// machinery of sharded informers or of the ring: the cache reaches it
// only through AddShard, the manager only through Options.Sharding, the
// controller builder only through Sharded. A program that never sets
// Options.LeaderElection (the README's controller; the mirror does, from
// a flag) links no elector. A program that never changes its scope
// while running links none of SetNamespaces, RemoveInformer or
// RemoveController. A program that never calls controller.Builder.Clusters
// links none of the fleet (package manager/fleet, the per-cluster
// controllers). Neither links the profiling endpoint (package
// manager/pprof, runtime/pprof, net/http/pprof). It reads the mirror and
// the README's controller.
func TestOptionalPartsNotLinked(t *testing.T) {
	t.Parallel()
	paths := built(t)
	sharding := []string{
		"kubeloop/cache.(*shardSet).runShardsLocked",
		"kubeloop/cache.(*shardSet).serverIgnores",
		"kubeloop/leader.(*Member).Run",
		"kubeloop/controller.(*Shards).Work",
		"kubeloop/manager.(*ring).work",
	}
	election := []string{
		"kubeloop/leader.(*Elector).Run",
		"kubeloop/manager.LeaderElectionOptions.newElection",
	}
	// Neither checks its permissions at start (Options.Permissions).
	permissions := []string{
		"kubeloop/manager.PermissionsCheck.checkPermissions",
		"kubeloop/manager.rulesYAML",
	}
	// Neither program changes its scope while running: no namespaces
	// set, no informer or controller removed.
	scope := []string{
		"kubeloop/cache.(*informer).SetNamespaces",
		"kubeloop/cache.(*informer).setScope",
		"kubeloop/cache.(*store).setScope",
		"kubeloop/cache.(*Cache).RemoveInformer",
		"kubeloop/manager.(*Manager).RemoveController",
	}
	// Neither program watches a fleet: no Builder.Clusters, no package
	// manager/fleet, nothing they alone reach.
	fleet := []string{
		"kubeloop/controller.(*fleetController)",
		"kubeloop/controller.clusterBuild",
		"kubeloop/manager/fleet.",
		"kubeloop/kube.ParseKubeconfig",
		"kubeloop/kube.KubeconfigPolicy",
	}
	// Neither program calls kube.MergeFrom, indexes by owner or writes a
	// subresource but status, and every object is decoded by
	// internal/jsondec: encoding/json's decoder is not linked.
	always := []string{
		"kubeloop/cache.(*Cache).IndexOwner",
		"kubeloop/cache.OwnedBy",
		"kubeloop/kube.SubResourceClient.",
		"kubeloop/kube.(*Scale)",
		"kubeloop/kube.(*Eviction)",
		"kubeloop/kube.(*mergeFrom).dataFor",
		"kubeloop/internal/jsonpatch.CreateMerge",
		// Neither calls Update (leader election replaces its Lease):
		// the read and merge that keep what a type does not declare
		// are not linked.
		"kubeloop/kube.putKeeping",
		"kubeloop/kube.(*overlay)",
		"encoding/json.(*decodeState)",
		// Neither serves profiles (package manager/pprof, which is
		// what reaches runtime/pprof; net/http/pprof is never used).
		"kubeloop/manager/pprof.",
		"runtime/pprof.StartCPUProfile",
		"net/http/pprof.",
		// Neither serves its metrics over HTTPS (package
		// manager/metricsauth, with the certificate reloader it
		// shares with the webhook server): the manager's handler for
		// it goes too.
		"kubeloop/manager/metricsauth.",
		"kubeloop/internal/servingcert.",
		"kubeloop/manager.(*Manager).MetricsHandler",
	}
	for _, prog := range []struct {
		name   string
		absent []string
	}{
		{"mirror", slices.Concat(sharding, scope, fleet, permissions, always)},
		{"readme", slices.Concat(sharding, election, scope, fleet, permissions, always)},
	} {
		out, err := exec.Command("go", "tool", "nm", paths[prog.name]).Output()
		if err != nil {
			t.Fatalf("go tool nm %s: %v", prog.name, err)
		}
		// What every program of the cache links, and what the mirror
		// links since it may elect: the names are read as they are
		// spelled below.
		for _, sym := range []string{"kubeloop/cache.(*Cache).Get", "kubeloop/manager.(*Manager).Start"} {
			if !strings.Contains(string(out), sym) {
				t.Fatalf("%s does not link %s: the symbols are not named as this test expects", prog.name, sym)
			}
		}
		if prog.name == "mirror" {
			for _, sym := range election {
				if !strings.Contains(string(out), sym) {
					t.Fatalf("the mirror, which elects, does not link %s: the symbols are not named as this test expects", sym)
				}
			}
		}
		for _, sym := range prog.absent {
			if strings.Contains(string(out), sym) {
				t.Errorf("%s links %s, which it does not use", prog.name, sym)
			}
		}
	}
}
