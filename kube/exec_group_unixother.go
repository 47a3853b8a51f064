// SPDX-License-Identifier: Apache-2.0

//go:build unix && !linux

package kube

import "syscall"

// dieWithParent does nothing: only Linux has a parent-death signal.
func dieWithParent(*syscall.SysProcAttr) {}
