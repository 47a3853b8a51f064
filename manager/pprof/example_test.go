// SPDX-License-Identifier: Apache-2.0

package pprof_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/pprof"
)

// A manager that serves its profiles on loopback: go tool pprof
// http://127.0.0.1:8082/debug/pprof/heap reads them. Here the port is
// any free one, and the program reads the index once.
func Example() {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	mgr, err := manager.New(srv.Config(), manager.Options{MetricsBindAddress: "0"})
	if err != nil {
		panic(err)
	}
	profiles, err := pprof.New(pprof.Options{BindAddress: "127.0.0.1:0"}) // "127.0.0.1:8082" in a real program
	if err != nil {
		panic(err)
	}
	if err := mgr.Add(profiles); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	<-mgr.Elected() // the pprof server started before the caches

	resp, err := http.Get("http://" + profiles.Addr().String() + "/debug/pprof/")
	if err != nil {
		panic(err)
	}
	first, _ := bufio.NewReader(resp.Body).ReadString('\n')
	resp.Body.Close()
	fmt.Print(resp.StatusCode, " ", first)
	cancel()
	fmt.Println(<-done)
	// Output:
	// 200 profile: CPU profile, ?seconds=N
	// <nil>
}
