// SPDX-License-Identifier: Apache-2.0

// Demo runs the mirror (package cmd/internal/mirror, the controller of
// cmd/mirror) with leader election and metrics on an in-process kubetest
// API server, takes it through the life of a source, and tells what
// happens on stdout. It needs no cluster, no file and no network beyond a
// loopback port for the metrics:
//
//	go run ./cmd/demo
//
// It exits 0 once every expected state was reached, 1 if one was not
// within 30 seconds, 2 on bad flags. --log-level info shows the
// controller's logs on stderr. See cmd/README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/kubeloop/kubeloop/cmd/internal/operator"
	"github.com/kubeloop/kubeloop/manager"
)

// The exit codes.
const (
	exitOK      = 0 // every expected state was reached
	exitRuntime = 1 // one was not
	exitConfig  = 2 // bad flags
)

func main() {
	os.Exit(run(manager.SetupSignalHandler(), os.Args[1:], os.Stdout, os.Stderr))
}

// run is the program: it returns the exit code. The story goes to stdout,
// logs and usage to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	log, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "demo: %v\n", err)
		return exitConfig
	}
	return runDemo(ctx, stdout, log)
}

// parseFlags parses the command line into the logger it asks for. It
// returns flag.ErrHelp for -h, and an error naming the flag and its value
// for anything wrong.
func parseFlags(args []string, stderr io.Writer) (*slog.Logger, error) {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var l operator.LogFlags
	fs.StringVar(&l.Level, "log-level", "warn", "log level of the mirror's logs on stderr: debug, info, warn or error")
	fs.StringVar(&l.Format, "log-format", "text", "log format: text or json")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	errs = append(errs, l.Validate())
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return l.NewLogger(stderr), nil
}
