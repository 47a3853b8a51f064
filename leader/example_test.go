// SPDX-License-Identifier: Apache-2.0

package leader_test

import (
	"context"
	"fmt"
	"log"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/leader"
)

// One replica campaigns for a Lease on an in-process API server, leads,
// and on shutdown releases the Lease for its successor.
func Example() {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	client, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
	if err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	e, err := leader.New(leader.Options{
		Client:    client,
		Namespace: "default",
		LeaseName: "demo-leader",
		Identity:  "pod-a", // empty: hostname_uuid
		// The work below stops when its context is cancelled, so the Lease
		// may be released as soon as it returns.
		ReleaseOnCancel: true,
		OnStartedLeading: func(ctx context.Context) {
			<-ctx.Done() // run the controllers until leadership ends
		},
		OnStoppedLeading: func() { fmt.Println("stopped leading") },
	})
	if err != nil {
		log.Fatal(err)
	}

	done := make(chan error)
	go func() { done <- e.Run(ctx) }()
	<-e.Elected()
	fmt.Printf("leading: %v, leader: %q\n", e.IsLeader(), e.Leader())

	cancel() // shutdown: SIGTERM in a real process
	fmt.Println("Run:", <-done)

	var l kube.Lease
	if err := client.Get(context.Background(), kube.Key{Namespace: "default", Name: "demo-leader"}, &l); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("holder after release: %q, leaseDurationSeconds: %d\n", *l.Spec.HolderIdentity, *l.Spec.LeaseDurationSeconds)
	// Output:
	// leading: true, leader: "pod-a"
	// stopped leading
	// Run: <nil>
	// holder after release: "", leaseDurationSeconds: 1
}
