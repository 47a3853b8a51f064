// SPDX-License-Identifier: Apache-2.0

// Command seed makes namespace peer of the server of $KUBECONFIG hold
// exactly the n ConfigMaps the measurements use (cm-000000 on, 1 KiB of
// data each, distinct per object), none of them carrying the label the
// write programs add: it creates those missing, deletes any other and
// removes the label where it is, with many requests in flight. Run it
// again before each write measurement to reset the objects.
//
//	seed -n 50000 [-parallel 64]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/testdata/peer/internal/measure"
)

func main() {
	n := flag.Int("n", 50000, "number of ConfigMaps")
	parallel := flag.Int("parallel", 64, "requests in flight")
	flag.Parse()
	if err := seed(*n, *parallel); err != nil {
		measure.Fail(fmt.Errorf("seed: %w", err))
	}
}

func seed(n, parallel int) error {
	cfg, err := kube.LoadConfig(kube.LoadOptions{})
	if err != nil {
		return err
	}
	c, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	err = c.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: measure.Namespace}})
	if err != nil && !kube.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", measure.Namespace, err)
	}
	have := kube.List[kube.PartialObjectMetadata]{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}}
	if err := kube.ListAll(ctx, c, &have, kube.ListOptions{Namespace: measure.Namespace}); err != nil {
		return fmt.Errorf("list ConfigMaps: %w", err)
	}
	labelled := make(map[string]bool, len(have.Items))
	extra := make(map[string]bool, len(have.Items))
	for _, o := range have.Items {
		extra[o.Name] = true
		if _, ok := o.Labels[measure.Label]; ok {
			labelled[o.Name] = true
		}
	}

	var (
		wg       sync.WaitGroup
		failOnce sync.Once
		failed   error
	)
	jobs := make(chan func() error)
	for range parallel {
		wg.Go(func() {
			for job := range jobs {
				if err := job(); err != nil {
					failOnce.Do(func() { failed = err; cancel() })
				}
			}
		})
	}
	unlabel := kube.Patch{Type: kube.MergePatch, Data: fmt.Appendf(nil, `{"metadata":{"labels":{%q:null}}}`, measure.Label)}
	var created, unlabelled int
	for k := range n {
		name := measure.Name(k)
		cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: measure.Namespace, Name: name},
			Data: map[string]string{"payload": measure.Payload(k)}}
		switch {
		case labelled[name]:
			unlabelled++
			jobs <- func() error { return c.Patch(ctx, cm, unlabel) }
		case !extra[name]:
			created++
			jobs <- func() error { return c.Create(ctx, cm) }
		}
		delete(extra, name)
	}
	for name := range extra {
		jobs <- func() error {
			cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: measure.Namespace, Name: name}}
			return c.Delete(ctx, cm)
		}
	}
	close(jobs)
	wg.Wait()
	if failed != nil {
		return failed
	}
	fmt.Fprintf(os.Stderr, "seed: namespace %s holds %d ConfigMaps, none labelled: %d created, %d unlabelled, %d deleted, in %v\n",
		measure.Namespace, n, created, unlabelled, len(extra), time.Since(start).Round(time.Millisecond))
	return nil
}
