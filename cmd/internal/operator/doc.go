// SPDX-License-Identifier: Apache-2.0

// Package operator is what the example programs cmd/mirror and cmd/ttl
// share: their main ([Main]), the command line flags every operator takes,
// their checks, the logger they ask for, the exit codes, and the loading of
// the cluster configuration. It guarantees:
//
//   - One spelling: each common flag has one name, default and help text,
//     and each bad value one error message, naming the flag and the value.
//   - All at once: [Flags.Validate] reports every bad value, not the first.
//   - No globals: flags go on the [flag.FlagSet] the program passes in.
//
// Usage:
//
//  1. Embed [Flags] in the program's options and call [Flags.Register] on
//     its flag set, beside its own flags; after parsing, join
//     [Flags.Validate] with the program's own checks.
//  2. Describe the program as a [Program]: its name, that parser, and
//     what it runs on a cluster, returning [ExitOK], [ExitRuntime] or
//     [ExitConfig].
//  3. main is os.Exit(Main(manager.SetupSignalHandler(), program,
//     os.Args[1:], os.Stderr)): Main builds the logger
//     ([LogFlags.NewLogger]) and loads the cluster configuration
//     ([Flags.LoadConfig]) in between.
package operator

// The exit codes of the programs.
const (
	ExitOK      = 0 // stopped by SIGINT or SIGTERM
	ExitRuntime = 1 // failed while running, or lost the leadership
	ExitConfig  = 2 // bad flags or configuration
)
