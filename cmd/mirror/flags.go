// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/kubeloop/kubeloop/cmd/internal/mirror"
	"github.com/kubeloop/kubeloop/cmd/internal/operator"
)

// options are the command line, checked.
type options struct {
	operator.Flags
	namespace string
}

// parseFlags parses the command line (see [operator.Program.Parse]).
func parseFlags(args []string, out io.Writer) (options, *operator.Flags, error) {
	var o options
	fs := flag.NewFlagSet("mirror", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprint(out, `Usage: mirror [flags]

Copies Secrets and ConfigMaps annotated with
  kubeloop.dev/mirror-to: ns-a,ns-b
  kubeloop.dev/mirror-to-selector: <label selector on namespaces>
into those namespaces, keeps the copies in sync, and deletes them when the
source goes or stops asking for them. To see it work on an in-process
API server, without a cluster: go run ./cmd/demo

Exit codes: 0 stopped cleanly (SIGINT, SIGTERM), 1 runtime error or
leadership lost, 2 bad flags or configuration.

Flags:
`)
		fs.PrintDefaults()
	}
	o.Register(fs, 2, "reconciles run at once, per kind")
	fs.StringVar(&o.namespace, "namespace", "", "mirror only the sources in this namespace (copies go anywhere); default all")
	if err := fs.Parse(args); err != nil {
		return o, &o.Flags, err
	}

	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	errs = append(errs, o.Validate())
	if o.namespace != "" && !mirror.IsNamespaceName(o.namespace) {
		errs = append(errs, fmt.Errorf("--namespace %q: not a namespace name", o.namespace))
	}
	return o, &o.Flags, errors.Join(errs...)
}
