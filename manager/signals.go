// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// SetupSignalHandler returns a context cancelled on the first SIGINT or
// SIGTERM; a second one exits the process with code 1 at once, for an
// operator who does not want to wait for a graceful stop. Call it once,
// in main: it listens for the signals for the life of the process.
func SetupSignalHandler() context.Context {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return signalContext(ch, os.Exit)
}

// signalContext is SetupSignalHandler with the signals and the exit
// function passed in, for tests. Its goroutine ends at the second signal
// (after calling exit) or when ch is closed.
func signalContext(ch <-chan os.Signal, exit func(code int)) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		if _, ok := <-ch; !ok {
			return
		}
		cancel()
		if _, ok := <-ch; ok {
			exit(1)
		}
	}()
	return ctx
}
