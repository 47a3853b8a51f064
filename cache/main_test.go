// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// TestMain runs the tests twice: with informers as each test makes them,
// then with every informer compact (InformerOptions.Compact), so that the
// fault, ordering and read tests hold for both kinds of store. The
// measurements (KUBELOOP_MEASURE), benchmarks and fuzzing run once.
func TestMain(m *testing.M) {
	code := m.Run()
	once := flag.Lookup("test.bench").Value.String() != "" || flag.Lookup("test.fuzz").Value.String() != ""
	if code == 0 && !once && os.Getenv("KUBELOOP_MEASURE") == "" {
		fmt.Println("cache: running the tests again with every informer compact")
		testHookCompact = true
		code = m.Run()
	}
	os.Exit(code)
}
