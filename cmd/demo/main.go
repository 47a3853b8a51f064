// SPDX-License-Identifier: Apache-2.0

// Demo runs the mirror (package internal/mirror, the controller of
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
	level := fs.String("log-level", "warn", "log level of the mirror's logs on stderr: debug, info, warn or error")
	format := fs.String("log-format", "text", "log format: text or json")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(*level)); err != nil || *level != "debug" && *level != "info" && *level != "warn" && *level != "error" {
		errs = append(errs, fmt.Errorf("--log-level %q: want debug, info, warn or error", *level))
	}
	if *format != "text" && *format != "json" {
		errs = append(errs, fmt.Errorf("--log-format %q: want text or json", *format))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	ho := &slog.HandlerOptions{Level: l}
	if *format == "json" {
		return slog.New(slog.NewJSONHandler(stderr, ho)), nil
	}
	return slog.New(slog.NewTextHandler(stderr, ho)), nil
}
