// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/kubeloop/kubeloop/cmd/internal/operator"
	"github.com/kubeloop/kubeloop/kube"
)

// options are the command line, checked.
type options struct {
	operator.Flags
	kinds     []kube.GroupVersionKind
	selector  kube.Selector
	namespace string
	// sharded runs the controllers sharded across the replicas, in the
	// ring of Leases in ringNamespace, cut into ringRanges ranges.
	sharded       bool
	ringNamespace string
	ringRanges    int
}

// parseFlags parses the command line (see [operator.Program.Parse]).
func parseFlags(args []string, out io.Writer) (options, *operator.Flags, error) {
	var o options
	var errs []error
	fs := flag.NewFlagSet("ttl", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprint(out, `Usage: ttl --kind group/version/Kind [--kind ...] [flags]

Deletes objects of the given kinds once the duration in their annotation
  kubeloop.dev/ttl: 1h
has passed since their creationTimestamp. A value that is not a Go
duration (90s, 1h, 72h) gets a Warning Event and no deletion.

With --sharded, run as many replicas as you like: they share the objects
through a ring of Leases (kubeloop-ttl-*), each caching and expiring only
its share, and take over the share of a replica that stops or dies.

Exit codes: 0 stopped cleanly (SIGINT, SIGTERM), 1 runtime error or
leadership lost, 2 bad flags or configuration.

Flags:
`)
		fs.PrintDefaults()
	}
	seen := map[kube.GroupVersionKind]bool{}
	fs.Func("kind", "a kind to expire, as apps/v1/Deployment or v1/ConfigMap; repeat for more (required)", func(s string) error {
		gvk, err := parseKind(s)
		if err != nil {
			return err
		}
		key := kube.GroupVersionKind{Group: gvk.Group, Kind: gvk.Kind}
		if seen[key] {
			return fmt.Errorf("kind %s given twice", key.Kind)
		}
		seen[key] = true
		o.kinds = append(o.kinds, gvk)
		return nil
	})
	selector := fs.String("label-selector", "", "watch only the objects with these labels (less memory on big clusters)")
	fs.StringVar(&o.namespace, "namespace", "", "expire only objects in this namespace; default all")
	fs.BoolVar(&o.sharded, "sharded", false, "share the objects among the replicas: each caches and expires only its share (needs no --leader-elect; Kubernetes 1.36 with the ShardedListAndWatch feature gate to save memory)")
	fs.StringVar(&o.ringNamespace, "ring-namespace", "", "with --sharded: namespace of the replicas' Leases; default the pod's namespace")
	fs.IntVar(&o.ringRanges, "ring-ranges", 64, "with --sharded: how many ranges the objects are cut into; the same on every replica")
	o.Register(fs, 1, "deletes run at once, per kind")
	if err := fs.Parse(args); err != nil {
		return o, &o.Flags, err
	}

	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	if len(o.kinds) == 0 {
		errs = append(errs, errors.New("--kind is required: name at least one kind to expire, as apps/v1/Deployment"))
	}
	if *selector != "" {
		sel, err := kube.ParseSelector(*selector)
		if err != nil {
			errs = append(errs, fmt.Errorf("--label-selector: %w", err))
		}
		o.selector = sel
	}
	if o.sharded && o.LeaderElect {
		errs = append(errs, errors.New("--sharded and --leader-elect: sharded replicas share the work and need no leader; drop --leader-elect"))
	}
	if o.ringRanges < 1 || o.ringRanges > 4096 {
		errs = append(errs, fmt.Errorf("--ring-ranges %d: want 1 to 4096", o.ringRanges))
	}
	errs = append(errs, o.Validate())
	return o, &o.Flags, errors.Join(errs...)
}
