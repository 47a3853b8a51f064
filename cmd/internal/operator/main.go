// SPDX-License-Identifier: Apache-2.0

package operator

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/kube"
)

// Program is one operator program as [Main] runs it: its name, how it
// reads its command line, and what it runs once it has a cluster.
type Program[O any] struct {
	// Name prefixes the program's error lines ("mirror: ...").
	Name string
	// Hint ends the advice printed when no cluster configuration is
	// found, as ", or ..."; "" for none.
	Hint string
	// Parse reads the command line: the program's options and the
	// [Flags] they embed. It returns flag.ErrHelp for -h, and an error
	// naming each bad flag and value; usage goes to out.
	Parse func(args []string, out io.Writer) (O, *Flags, error)
	// Run runs the program on the cluster cfg reaches until ctx is done
	// or something fails, and returns the exit code and the error behind
	// it (nil for [ExitOK]).
	Run func(ctx context.Context, cfg *kube.Config, opts O, log *slog.Logger) (code int, err error)
}

// Main is an operator program from its arguments to its exit code:
// parse the flags, build the logger, load the cluster configuration, run.
// A bad flag or configuration (also one Run reports with [ExitConfig],
// and an address the manager's Start could not listen on) is written to
// stderr as "name: error"; a runtime failure is logged. Logs
// and usage go to stderr too. main calls it with the signal context:
//
//	os.Exit(operator.Main(manager.SetupSignalHandler(), program, os.Args[1:], os.Stderr))
func Main[O any](ctx context.Context, p Program[O], args []string, stderr io.Writer) int {
	opts, flags, err := p.Parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", p.Name, err)
		return ExitConfig
	}
	log := flags.Log.NewLogger(stderr)
	cfg, ok := flags.LoadConfig(stderr, p.Name, p.Hint)
	if !ok {
		return ExitConfig
	}
	code, err := p.Run(ctx, cfg, opts, log)
	if code == ExitRuntime && isListenError(err) {
		code = ExitConfig
	}
	switch {
	case code == ExitConfig:
		fmt.Fprintf(stderr, "%s: %v\n", p.Name, err)
	case err != nil:
		log.Error(p.Name+" failed", "err", err)
	}
	return code
}

// isListenError reports whether err is a failure to listen on an address
// (an address in use, a host not on this machine): the manager's Start
// returns one, naming the option, before it starts anything.
func isListenError(err error) bool {
	op, ok := errs.As[*net.OpError](err)
	return ok && op.Op == "listen"
}
