// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package kube

import "os/exec"

// inOwnGroup does nothing where there are no process groups to kill
// (Windows): the end of the context kills the plugin alone.
func inOwnGroup(*exec.Cmd) {}
