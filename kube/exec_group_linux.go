// SPDX-License-Identifier: Apache-2.0

package kube

import "syscall"

// dieWithParent makes the process killed when the thread that starts it
// ends: with this process, whatever ends it.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
