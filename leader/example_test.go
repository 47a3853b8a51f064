// SPDX-License-Identifier: Apache-2.0

package leader_test

import (
	"context"
	"fmt"
	"log"
	"slices"

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

// A replica joins a ring of members sharing the objects of a kind by the
// hash of their uid. Alone, it holds every range; its Work for a range
// would list and watch that range's objects with the range's selector.
func ExampleMember() {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	client, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
	if err != nil {
		log.Fatal(err)
	}

	started := make(chan leader.Range)
	m, err := leader.NewMember(leader.RingOptions{
		Client:    client,
		Namespace: "default",
		Ring:      "mirror",
		Identity:  "pod-a", // empty: hostname_uuid
		Ranges:    4,
		Work: func(ctx context.Context, sel kube.ShardSelector) error {
			started <- leader.RangeOf(sel.Ranges[0].Start, 4)
			<-ctx.Done() // reconcile the objects sel selects until the range moves or the member leaves
			return nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- m.Run(ctx) }()
	var held []leader.Range
	for range 4 {
		held = append(held, <-started)
	}
	slices.SortFunc(held, func(a, b leader.Range) int { return a.Index - b.Index })
	for _, r := range held {
		fmt.Println(r, leader.ShardSelector(kube.ShardByUID, r))
	}
	fmt.Println("all:", leader.ShardSelector(kube.ShardByUID, held...))

	cancel() // shutdown: every Work is asked to stop, then the Lease is deleted
	fmt.Println("Run:", <-done)
	// Output:
	// 0/4 shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')
	// 1/4 shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000')
	// 2/4 shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')
	// 3/4 shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')
	// all: shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')
	// Run: <nil>
}
