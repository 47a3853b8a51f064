// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxSizeRatio is how much larger than the floor program the mirror may
// be: kubeloop's own code, in a default build, stays within 15% of what
// the standard packages it needs already cost.
const maxSizeRatio = 1.15

// TestBinarySize builds the mirror and the floor program
// (testdata/sizefloor) the same way and compares their sizes, for
// cmd/README.md. Two builds take a while cold, so it runs only when asked:
//
//	KUBELOOP_MEASURE=1 go test -run TestBinarySize -v ./cmd/mirror/
func TestBinarySize(t *testing.T) {
	if os.Getenv("KUBELOOP_MEASURE") == "" {
		t.Skip("set KUBELOOP_MEASURE=1 to run the measurement")
	}
	dir := t.TempDir()
	size := func(name, pkg string, flags ...string) int64 {
		bin := filepath.Join(dir, name)
		args := append(append([]string{"build", "-o", bin}, flags...), pkg)
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
		fi, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	for _, build := range []struct {
		name  string
		flags []string
	}{
		{"default", nil},
		{"stripped", []string{"-ldflags=-s -w"}},
	} {
		floor := size("floor-"+build.name, "../../testdata/sizefloor", build.flags...)
		mirror := size("mirror-"+build.name, ".", build.flags...)
		ratio := float64(mirror) / float64(floor)
		t.Logf("%s build: mirror %d bytes, floor %d bytes, %.3f×", build.name, mirror, floor, ratio)
		if build.flags == nil && ratio > maxSizeRatio {
			t.Errorf("mirror is %.3f× the floor, more than %.2f×", ratio, maxSizeRatio)
		}
	}
}

// TestShardingNotLinked checks that a program that never shards links
// none of the machinery of sharded informers or of the ring (about 60 KB
// of the mirror when the informer's own paths called it directly): the
// cache reaches it only through AddShard, the manager only through
// Options.Sharding, the controller builder only through Sharded. Like TestBinarySize it builds the mirror, so it runs
// only when asked.
func TestShardingNotLinked(t *testing.T) {
	if os.Getenv("KUBELOOP_MEASURE") == "" {
		t.Skip("set KUBELOOP_MEASURE=1 to run the measurement")
	}
	bin := filepath.Join(t.TempDir(), "mirror")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, sym := range []string{
		"kubeloop/cache.(*shardSet).runShardsLocked",
		"kubeloop/cache.(*shardSet).serverIgnores",
		"kubeloop/leader.(*Member).Run",
		"kubeloop/controller.(*Shards).Work",
		"kubeloop/manager.(*ring).work",
	} {
		if strings.Contains(string(out), sym) {
			t.Errorf("the mirror links %s, which only sharding programs need", sym)
		}
	}
}
