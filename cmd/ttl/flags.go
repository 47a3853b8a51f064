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
	errs = append(errs, o.Validate())
	return o, &o.Flags, errors.Join(errs...)
}
