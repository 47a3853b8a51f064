// SPDX-License-Identifier: Apache-2.0

package queue_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"

	"github.com/kubeloop/kubeloop/queue"
)

// A worker loop: Get, process, then Forget on success or AddRateLimited to
// retry, and always Done.
func Example() {
	q, err := queue.New(queue.Options[string]{Name: "configmaps"})
	if err != nil {
		log.Fatal(err)
	}

	// The initial list goes in with a low priority, so a real change that
	// arrives meanwhile is handled first.
	q.AddWithOptions("default/a", queue.AddOptions{Priority: -100})
	q.AddWithOptions("default/b", queue.AddOptions{Priority: -100})
	q.Add("default/changed")

	attempts := map[string]int{}
	finished := make(chan struct{})
	reconcile := func(key string) error {
		attempts[key]++
		if key == "default/b" {
			if attempts[key] == 1 {
				return errors.New("conflict")
			}
			close(finished)
		}
		return nil
	}

	var workers sync.WaitGroup
	workers.Go(func() {
		for {
			key, ok := q.Get()
			if !ok {
				return // shut down
			}
			if err := reconcile(key); err != nil {
				fmt.Printf("%s: %v, retry %d\n", key, err, q.NumRequeues(key)+1)
				q.AddRateLimited(key) // back off 5ms, 10ms, ...
			} else {
				fmt.Printf("%s: ok\n", key)
				q.Forget(key)
			}
			q.Done(key)
		}
	})

	<-finished
	if err := q.ShutDownWithDrain(context.Background()); err != nil {
		log.Print(err)
	}
	workers.Wait()
	// Output:
	// default/changed: ok
	// default/a: ok
	// default/b: conflict, retry 1
	// default/b: ok
}
